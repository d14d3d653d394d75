package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.StartFrom;
import dev.floe.worker.runtime.StartPosition.FromBeginning;
import dev.floe.worker.runtime.StartPosition.FromEnd;
import dev.floe.worker.runtime.StartPosition.Kind;
import dev.floe.worker.runtime.StartPosition.Refused;
import dev.floe.worker.runtime.StartPosition.Seek;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Where a worker resumes a partition, decided without a broker. */
class StartPositionTest {
  private static final TopicPartition TP = new TopicPartition("orders", 0);

  @Test
  void theTablesOffsetWinsWhileTheLogHoldsIt() {
    for (StartFrom from : new StartFrom[] {null, StartFrom.GROUP, StartFrom.EARLIEST, StartFrom.LATEST}) {
      assertThat(StartPosition.decide(TP, 5, 9L, 0L, 10L, from)).isEqualTo(new Seek(5));
    }
    assertThat(StartPosition.decide(TP, 3, null, 3L, 10L, null)).as("at the log start").isEqualTo(new Seek(3));
    assertThat(StartPosition.decide(TP, 10, null, 3L, 10L, null)).as("at the log end").isEqualTo(new Seek(10));
    assertThat(StartPosition.decide(TP, 5, null, null, null, null)).as("range unknown: the fetch checks").isEqualTo(new Seek(5));
  }

  @Test
  void aTableOffsetOutsideTheLogIsRefusedWhateverStartFromSays() {
    StartPosition.Decision below = StartPosition.decide(TP, 2, null, 8L, 10L, StartFrom.EARLIEST);
    assertThat(below).isInstanceOfSatisfying(Refused.class, r -> {
      assertThat(r.kind()).isEqualTo(Kind.OUT_OF_RANGE);
      assertThat(r.problem()).contains("orders-0", "offset 2", "[8, 10)", "retention deleted offsets 2..7");
    });
    StartPosition.Decision beyond = StartPosition.decide(TP, 40, null, 0L, 3L, StartFrom.LATEST);
    assertThat(beyond).isInstanceOfSatisfying(Refused.class, r -> {
      assertThat(r.kind()).isEqualTo(Kind.OUT_OF_RANGE);
      assertThat(r.problem()).contains("orders-0", "offset 40", "ends at 3", "re-created");
    });
  }

  @Test
  void aTableHoldingNothingStartsWhereStartFromSays() {
    assertThat(StartPosition.decide(TP, -1, null, 0L, 10L, null)).as("a brand-new sink").isEqualTo(new FromBeginning());
    assertThat(StartPosition.decide(TP, -1, 7L, 0L, 10L, StartFrom.EARLIEST)).isEqualTo(new FromBeginning());
    assertThat(StartPosition.decide(TP, -1, 7L, 0L, 10L, StartFrom.LATEST)).isEqualTo(new FromEnd());
    assertThat(StartPosition.decide(TP, -1, 7L, 0L, 10L, StartFrom.GROUP)).isEqualTo(new Seek(7));
    assertThat(StartPosition.decide(TP, -1, null, 0L, 10L, StartFrom.GROUP)).as("group without offsets").isEqualTo(new FromBeginning());
    assertThat(StartPosition.decide(TP, -1, 1L, 4L, 10L, StartFrom.GROUP)).as("group offset deleted by retention")
        .isInstanceOfSatisfying(Refused.class, r -> assertThat(r.kind()).isEqualTo(Kind.OUT_OF_RANGE));
  }

  @Test
  void aTableHoldingNothingUnderAGroupThatReadThePartitionIsRefusedUnlessStartFromIsSet() {
    assertThat(StartPosition.decide(TP, -1, 7L, 0L, 10L, null)).isInstanceOfSatisfying(Refused.class, r -> {
      assertThat(r.kind()).isEqualTo(Kind.START_FROM_REQUIRED);
      assertThat(r.problem()).contains("orders-0", "committed 7");
    });
  }
}
