package dev.floe.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ceiling ratio in rounds: each drain against the ceilings either side of it, the median read, an A/B kept apart. */
class CeilingRoundsTest {
  private static final Sampler.Usage USED = new Sampler.Usage(60, 14, 6);

  @Test
  void aRoundIsReadAgainstTheMeanOfTheCeilingsEitherSideOfIt() {
    // given a drain at 280k rec/s between ceilings of 300k and 500k
    CeilingRounds rounds = new CeilingRounds();

    // when it is recorded
    rounds.drained(280_000, 300_000, 500_000, false, USED);

    // then its ratio is to 400k, not to either end
    assertThat(rounds.ratios()).singleElement().satisfies(r -> assertThat(r).isCloseTo(0.70, within(1e-9)));
  }

  @Test
  void theMedianOfTheRoundsIsTheFigureAndOneFastMinuteDoesNotMoveIt() {
    // given three drains against the ceilings measured around each, one of them in a fast minute
    CeilingRounds rounds = new CeilingRounds();
    rounds.drained(263_600, 269_000, 453_000, false, USED); // 0.73
    rounds.drained(272_000, 453_000, 444_000, false, USED); // 0.61
    rounds.drained(214_000, 444_000, 332_000, false, USED); // 0.55

    // then the median is the middle round
    assertThat(rounds.median()).isCloseTo(0.606, within(0.001));
  }

  @Test
  void anEvenCountTakesTheMeanOfTheTwoMiddleRounds() {
    assertThat(CeilingRounds.median(List.of(0.85, 0.70, 0.78, 0.66))).isCloseTo(0.74, within(1e-9));
    assertThat(CeilingRounds.median(List.of())).isNaN();
  }

  @Test
  void anAlternateWorkersRoundsAreReportedApart() {
    // given base and alternate drains, as -Dfloe.bench.roundsAlternate interleaves them
    CeilingRounds rounds = new CeilingRounds();
    rounds.drained(300_000, 400_000, 400_000, false, USED);
    rounds.drained(320_000, 400_000, 400_000, true, USED);
    rounds.drained(280_000, 400_000, 400_000, false, USED);

    // when reported with the alternate's flags
    Map<String, Object> report = rounds.report(List.of("-Dx=y"));

    // then each side has its own rates, ratios and median
    assertThat(report).containsEntry("recordsPerSecondByRound", List.of(300_000L, 280_000L))
        .containsEntry("roundsAlternate.recordsPerSecondByRound", List.of(320_000L))
        .containsEntry("roundsAlternate.flags", "-Dx=y");
    assertThat((double) report.get("ratioToDecodeCeilingMedian")).isCloseTo(0.725, within(1e-9));
    assertThat((double) report.get("roundsAlternate.ratioToDecodeCeilingMedian")).isCloseTo(0.80, within(1e-9));
    assertThat(rounds.report(List.of())).doesNotContainKey("roundsAlternate.flags");
  }

  @Test
  void eachRoundReportsWhatItsWorkerUsed() {
    // given a base and an alternate drain whose workers used different CPU and pauses
    CeilingRounds rounds = new CeilingRounds();
    rounds.drained(300_000, 400_000, 400_000, false, new Sampler.Usage(56.204, 13.1, 5.189));
    rounds.drained(290_000, 400_000, 400_000, true, new Sampler.Usage(61.0, 14.0, 6.8));

    // when reported
    Map<String, Object> report = rounds.report(List.of("-Dx=y"));

    // then each side lists its own workers' CPU, collector pauses and compilation, round by round
    assertThat(report).containsEntry("worker.cpuSecondsByRound", List.of(56.2))
        .containsEntry("worker.gcPauseSecondsByRound", List.of(5.19))
        .containsEntry("worker.jitCompilationSecondsByRound", List.of(13.1))
        .containsEntry("roundsAlternate.worker.gcPauseSecondsByRound", List.of(6.8));
  }
}
