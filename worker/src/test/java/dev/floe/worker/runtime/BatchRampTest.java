package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.SharedSchemas;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * A started worker's batches ramp up: the first a sixteenth of {@code maxRecords}, doubling up to
 * it, so its applying thread starts within a poll or two instead of after a full batch. Small
 * limits are held from the first batch.
 */
class BatchRampTest {
  @Test
  void theDefaultLimitRampsUpFromASixteenthInFourDoublings() {
    BatchRamp ramp = BatchRamp.upTo(500_000);

    List<Integer> caps = new ArrayList<>();
    for (int cap = ramp.first(), i = 0; i < 7; cap = ramp.next(cap), i++) {
      caps.add(cap);
    }

    assertThat(caps).containsExactly(31_250, 62_500, 125_000, 250_000, 500_000, 500_000, 500_000);
  }

  @Test
  void aLimitWhoseSixteenthIsUnderTwentyThousandIsNotRamped() {
    assertThat(BatchRamp.upTo(319_999).first()).isEqualTo(319_999);
    assertThat(BatchRamp.upTo(4).first()).isEqualTo(4);
    assertThat(BatchRamp.upTo(320_000).first()).isEqualTo(20_000);
  }

  @Test
  void theLargestLimitDoublesWithoutOverflowing() {
    BatchRamp ramp = BatchRamp.upTo(Integer.MAX_VALUE);
    assertThat(ramp.next(Integer.MAX_VALUE / 2 + 1)).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void aRampMustStartWithinItsLimit() {
    assertThatThrownBy(() -> new BatchRamp(0, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BatchRamp(11, 10)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRampedBatchHoldsEachLimitExactlyAndKeepsTheRestWaitingInOrder() {
    // given a ramp from 3 to 12 records and a backlog of 30 polled at once
    OpenBatch batch = new OpenBatch(new CommitSpec("1h", 12, null), new SharedSchemas(), new BatchRamp(3, 12));
    IntStream.range(0, 30).mapToObj(o -> new RawRecord("t", 0, o, null, "{}".getBytes(StandardCharsets.UTF_8)))
        .forEach(r -> batch.add(r, 0));

    // when each batch is handed over in turn
    List<Integer> sizes = new ArrayList<>();
    List<Long> offsets = new ArrayList<>();
    while (!batch.isEmpty()) {
      assertThat(batch.records()).hasSizeLessThanOrEqualTo(batch.recordLimit());
      sizes.add(batch.records().size());
      batch.records().forEach(r -> offsets.add(r.offset()));
      batch.clear();
    }

    // then they hold 3, 6, 12, then the limit, and every record once, in offset order
    assertThat(sizes).containsExactly(3, 6, 12, 9);
    assertThat(offsets).isEqualTo(LongStream.range(0, 30).boxed().toList());
  }
}
