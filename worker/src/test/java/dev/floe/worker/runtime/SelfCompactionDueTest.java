package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.maintain.SelfCompactionPlanner.Trigger;
import org.junit.jupiter.api.Test;

/** When the worker compacts: once per quiet spell after it wrote, else a dead-fraction check per interval while it writes. */
class SelfCompactionDueTest {
  private static final long S = 1_000_000_000L;

  @Test
  void aQuietSpellAfterWritingCompactsOnceAndBusyTurnsCheckDeadFractionsEveryInterval() {
    assertThat(SelfCompaction.due(true, 31 * S, 30 * S, true, 3, 5 * S)).isEqualTo(Trigger.IDLE);
    assertThat(SelfCompaction.due(true, 31 * S, 30 * S, false, 0, 60 * S)).as("nothing written since the last idle compaction").isNull();
    assertThat(SelfCompaction.due(true, 1 * S, 30 * S, true, 4, 31 * S)).isEqualTo(Trigger.DEAD_FRACTION);
    assertThat(SelfCompaction.due(true, 1 * S, 30 * S, true, 4, 10 * S)).as("checked recently").isNull();
    assertThat(SelfCompaction.due(true, 1 * S, 30 * S, true, 0, 31 * S)).as("no commit since the last check").isNull();
    assertThat(SelfCompaction.due(false, 99 * S, 30 * S, true, 9, 99 * S)).as("disabled").isNull();
  }
}
