package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.bench.OrdersWorkload;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.decode.RawRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A batch holds {@code maxRecords} exactly; what a poll brings beyond it waits, in order, for the
 * next. Its byte limit counts what records hold of their own, not the schema they repeat.
 */
class OpenBatchTest {
  @Test
  void aPollLargerThanTheRoomLeftWaitsForTheNextBatchInOrder() {
    // given room for 4 records and a poll of 10
    OpenBatch batch = new OpenBatch(new CommitSpec("1h", 4, null));
    records(0, 10).forEach(r -> batch.add(r, 0));

    // then each batch holds exactly 4, in offset order, until the last 2
    assertThat(offsets(batch)).containsExactly(0L, 1L, 2L, 3L);
    assertThat(batch.isDue(0)).isTrue();
    batch.clear();
    assertThat(offsets(batch)).containsExactly(4L, 5L, 6L, 7L);
    batch.clear();
    assertThat(offsets(batch)).containsExactly(8L, 9L);
    assertThat(batch.isDue(0)).as("not full, interval not passed").isFalse();
    batch.clear();
    assertThat(batch.isEmpty()).isTrue();
  }

  @Test
  void waitingRecordsCountAsUncommittedAndLeaveWithTheirPartition() {
    OpenBatch batch = new OpenBatch(new CommitSpec("1h", 4, null));
    records(0, 10).forEach(r -> batch.add(r, 0));
    TopicPartition tp = new TopicPartition("t", 0);
    assertThat(batch.uncommitted(tp)).isEqualTo(10);

    batch.drop(List.of(tp));
    assertThat(batch.isEmpty()).isTrue();
    records(10, 16).forEach(r -> batch.add(r, 0));
    batch.abandon();
    assertThat(batch.isEmpty()).isTrue();
  }

  @Test
  void theByteLimitCountsPayloadsNotTheSchemaEveryRecordRepeats() {
    // given orders change events, each mostly the JsonConverter schema it repeats
    List<RawRecord> polled = new OrdersWorkload(1_000).nextBatch(2_000);
    long raw = polled.stream().mapToLong(RawRecord::sizeInBytes).sum();
    OpenBatch unlimited = new OpenBatch(new CommitSpec("1h", 10_000, null));
    polled.forEach(r -> unlimited.add(r, 0));
    assertThat(unlimited.bytes()).as("held bytes of %,d raw", raw).isLessThan(raw / 3);

    // when the byte limit is what half of them hold
    OpenBatch batch = new OpenBatch(new CommitSpec("1h", 10_000, unlimited.bytes() / 2));
    int added = 0;
    List<RawRecord> returned = new java.util.ArrayList<>();
    while (!batch.isDue(0)) {
      returned.add(batch.add(polled.get(added++), 0));
    }

    // then the batch closes after about half of them, and gives back every record byte for byte
    assertThat(added).isBetween(900, 1_100);
    for (int i = 0; i < added; i++) {
      assertThat(batch.records().get(i).value()).isEqualTo(polled.get(i).value());
      assertThat(batch.records().get(i).sizeInBytes()).isEqualTo(polled.get(i).sizeInBytes());
      assertThat(batch.records().get(i)).as("the instance add returned (what the runtime decodes ahead by identity)")
          .isSameAs(returned.get(i));
    }
  }

  private static List<RawRecord> records(int from, int to) {
    return IntStream.range(from, to).mapToObj(o -> new RawRecord("t", 0, o, null, "{}".getBytes(StandardCharsets.UTF_8))).toList();
  }

  private static List<Long> offsets(OpenBatch batch) {
    return batch.records().stream().map(RawRecord::offset).toList();
  }
}
