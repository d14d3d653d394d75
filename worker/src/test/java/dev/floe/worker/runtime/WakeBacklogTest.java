package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class WakeBacklogTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);

  @Test
  void theBacklogIsDrainedOnceEveryPartitionIsReadToItsEndAtAssignment() {
    // given partitions assigned with 100 and 40 records waiting
    WakeBacklog backlog = new WakeBacklog();
    backlog.assigned(Map.of(P0, 100L, P1, 40L));

    // then reading one partition, or part of the other, does not close the batch
    assertThat(backlog.drainedBy(Map.of(P0, 100L))).isFalse();
    assertThat(backlog.drainedBy(Map.of(P0, 100L, P1, 39L))).isFalse();
    // and reading both to their ends (or past, over a commit marker) does, once
    assertThat(backlog.drainedBy(Map.of(P0, 101L, P1, 40L))).isTrue();
    assertThat(backlog.drainedBy(Map.of(P0, 500L, P1, 500L))).as("then the commit policy alone decides").isFalse();
  }

  @Test
  void aPartitionThatGoesAwayNoLongerHoldsTheBatchOpen() {
    // given two partitions waiting, one of which is revoked (or paused by a stopped table)
    WakeBacklog backlog = new WakeBacklog();
    backlog.assigned(Map.of(P0, 100L, P1, 40L));
    backlog.forget(List.of(P1));

    // then the other one read to its end drains the backlog
    assertThat(backlog.drainedBy(Map.of(P0, 100L))).isTrue();
  }

  @Test
  void nothingAssignedIsNeverDrained() {
    assertThat(new WakeBacklog().drainedBy(Map.of(P0, 5L))).isFalse();
  }
}
