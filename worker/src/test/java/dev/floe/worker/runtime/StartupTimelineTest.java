package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A start's steps keep the time they were first reached, and stop counting once the first commit is logged. */
class StartupTimelineTest {
  @Test
  void aStepKeepsItsFirstTimeAndNothingCountsAfterTheFirstCommit() throws Exception {
    // given a process that started 2 s ago
    StartupTimeline timeline = new StartupTimeline(System.currentTimeMillis() - 2_000);

    // when a step is reached twice, and the first commit comes
    timeline.mark("catalog");
    double first = timeline.marks().get("catalog");
    Thread.sleep(20);
    timeline.mark("catalog");
    timeline.firstCommit();
    timeline.mark("assigned"); // a later rebalance

    // then the step kept its first time, the commit is after it, and nothing was marked after the commit
    assertThat(timeline.marks().get("catalog")).isEqualTo(first).isGreaterThanOrEqualTo(2.0);
    assertThat(timeline.marks().get("first commit")).isGreaterThan(first);
    assertThat(timeline.marks()).containsOnlyKeys("catalog", "first commit");
    assertThat(timeline.marks().keySet()).as("in the order reached").containsExactly("catalog", "first commit");
  }
}
