package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** When the advisory group offset may move past the table's offset, and when it must not. */
class GroupOffsetsTest {
  static final TopicPartition P0 = new TopicPartition("t", 0);
  static final TopicPartition P1 = new TopicPartition("t", 1);

  @Test
  void afterACommitTheGroupSkipsTheCommitMarkerTheConsumerAlreadyPassed() {
    // given records 0..9 polled from p0, committed to the table (next 10), the consumer at 11 past the marker at 10
    GroupOffsets group = polled(P0, 0, 9);

    // then the group gets the position, so end offset − committed reads 0
    assertThat(group.afterTableCommit(Map.of(P0, 10L), Map.of(P0, 11L))).containsExactlyEntriesOf(Map.of(P0, 11L));
  }

  @Test
  void aPolledRecordTheTableDoesNotHoldKeepsTheGroupAtTheTablesOffset() {
    // given records 0..9 polled, but the table committed only up to 5 (a batch stopped part way, a paused table)
    GroupOffsets group = polled(P0, 0, 9);

    assertThat(group.afterTableCommit(Map.of(P0, 5L), Map.of(P0, 11L))).containsExactlyEntriesOf(Map.of(P0, 5L));
    group.committed(Map.of(P0, 5L));
    assertThat(group.whileIdle(Map.of(P0, 11L))).isEmpty();
  }

  @Test
  void aMarkerFetchedAfterTheLastCommitMovesTheGroupWhileIdle() {
    GroupOffsets group = polled(P0, 0, 9);
    group.committed(group.afterTableCommit(Map.of(P0, 10L), Map.of(P0, 10L)));

    // when the consumer later passes the marker at 10 without returning a record
    assertThat(group.whileIdle(Map.of(P0, 11L))).containsExactlyEntriesOf(Map.of(P0, 11L));
    group.committed(Map.of(P0, 11L));
    assertThat(group.whileIdle(Map.of(P0, 11L))).as("nothing more to move").isEmpty();
  }

  @Test
  void aPartitionThisWorkerNeverCommittedIsLeftToItsOwnerAndARevokedOneIsForgotten() {
    GroupOffsets group = polled(P0, 0, 9);
    group.committed(Map.of(P0, 10L));
    assertThat(group.whileIdle(Map.of(P1, 3L))).as("no table commit for p1 yet").isEmpty();

    group.forget(List.of(P0));
    assertThat(group.whileIdle(Map.of(P0, 11L))).isEmpty();
  }

  private static GroupOffsets polled(TopicPartition tp, long from, long to) {
    GroupOffsets group = new GroupOffsets();
    for (long o = from; o <= to; o++) {
      group.polled(tp, o);
    }
    return group;
  }
}
