package dev.floe.operator.scale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.operator.model.ScalingSpec;
import dev.floe.operator.scale.ReplicaPlanner.Observation;
import dev.floe.operator.scale.ReplicaPlanner.Plan;
import dev.floe.operator.scale.ReplicaPlanner.Reason;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The scaling decision as a pure function: every case the operator meets, no cluster. */
class ReplicaPlannerTest {
  static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
  /** min 0, max 8, 1000 records per worker, activation above 0, idle after 5m, stabilization 2m. */
  static final ScalingSpec POLICY = new ScalingSpec(0, 8, 1_000L, 0L, "5m", "2m", "15s");

  @Test
  void anIdleSinkWakesFromZeroOnTheFirstLagAboveTheActivationLag() {
    Plan plan = plan(POLICY, sink().replicas(0).lag(1));

    assertThat(plan.replicas()).isEqualTo(1);
    assertThat(plan.reason()).isEqualTo(Reason.ACTIVE);
    assertThat(plan.lastActive()).isEqualTo(T0);
  }

  @Test
  void lagAtOrBelowTheActivationLagLeavesASleepingSinkAtZero() {
    ScalingSpec policy = new ScalingSpec(0, 8, 1_000L, 500L, "5m", "2m", "15s");

    assertThat(plan(policy, sink().replicas(0).lag(500)).replicas()).isZero();
    assertThat(plan(policy, sink().replicas(0).lag(501)).replicas()).isEqualTo(1);
  }

  @Test
  void workersFollowTheLagPerReplicaAndAreCappedAtThePartitionsAndTheMaximum() {
    assertThat(plan(POLICY, sink().replicas(1).lag(3_500).partitions(12)).replicas()).isEqualTo(4);
    assertThat(plan(POLICY, sink().replicas(1).lag(50_000).partitions(3)).replicas()).isEqualTo(3);
    assertThat(plan(POLICY, sink().replicas(1).lag(50_000).partitions(64)).replicas()).isEqualTo(8);
  }

  @Test
  void aQuietSinkKeepsOneWorkerUntilTheIdleTimeHasPassedThenGoesToZero() {
    Fixture quiet = sink().replicas(1).lag(0).lastActive(T0.minus(Duration.ofMinutes(4)));
    assertThat(plan(POLICY, quiet).replicas()).isEqualTo(1);
    assertThat(plan(POLICY, quiet).reason()).isEqualTo(Reason.QUIET);

    Plan idle = plan(POLICY, quiet.lastActive(T0.minus(Duration.ofMinutes(5))));
    assertThat(idle.replicas()).isZero();
    assertThat(idle.reason()).isEqualTo(Reason.IDLE);
  }

  @Test
  void minReplicasKeepsWorkersWhenIdleButNeverMoreThanThePartitions() {
    ScalingSpec keepTwo = new ScalingSpec(2, 8, 1_000L, 0L, "5m", "2m", "15s");
    Fixture idle = sink().replicas(4).lag(0).lastActive(T0.minus(Duration.ofHours(1))).lastBusy(T0.minus(Duration.ofHours(1)));

    assertThat(plan(keepTwo, idle).replicas()).isEqualTo(2);
    assertThat(plan(keepTwo, idle.partitions(1)).replicas()).isEqualTo(1);
    assertThat(plan(keepTwo, sink().replicas(0).lag(0)).replicas()).isEqualTo(2);
  }

  @Test
  void aLagThatComesAndGoesBetweenCommitsDoesNotFlapTheWorkers() {
    // 4 workers, lag briefly low: the lag asks for 1, but it asked for 4 a minute ago
    Fixture dip = sink().replicas(4).lag(200).lastActive(T0).lastBusy(T0.minus(Duration.ofMinutes(1)));
    Plan held = plan(POLICY, dip);
    assertThat(held.replicas()).isEqualTo(4);
    assertThat(held.reason()).isEqualTo(Reason.STABILIZING);
    assertThat(held.lastBusy()).as("the window is not restarted by a low reading").isEqualTo(T0.minus(Duration.ofMinutes(1)));

    // the lag comes back: scaling up is immediate and restarts the window
    Plan up = plan(POLICY, dip.replicas(2).lag(6_000));
    assertThat(up.replicas()).isEqualTo(6);
    assertThat(up.lastBusy()).isEqualTo(T0);

    // low for the whole window: now it scales down
    Plan down = plan(POLICY, dip.lastBusy(T0.minus(Duration.ofMinutes(2))));
    assertThat(down.replicas()).isEqualTo(1);
    assertThat(down.reason()).isEqualTo(Reason.ACTIVE);
  }

  @Test
  void aFailedLagReadHoldsTheWorkersInsteadOfCountingAsZeroLag() {
    Fixture longIdle = sink().replicas(3).lastActive(T0.minus(Duration.ofHours(1))).lastBusy(T0.minus(Duration.ofHours(1)));

    Plan plan = plan(POLICY, longIdle.lag(null).partitions(0));

    assertThat(plan.replicas()).isEqualTo(3);
    assertThat(plan.reason()).isEqualTo(Reason.LAG_UNKNOWN);
    assertThat(plan.lastActive()).isEqualTo(T0.minus(Duration.ofHours(1)));
  }

  @Test
  void anOperatorRestartedOntoRunningWorkersStartsTheIdleClockInsteadOfStoppingThem() {
    Plan plan = plan(POLICY, sink().replicas(2).lag(0).lastActive(null).lastBusy(null));

    assertThat(plan.replicas()).isEqualTo(2);
    assertThat(plan.lastActive()).isEqualTo(T0);
  }

  private static Plan plan(ScalingSpec policy, Fixture f) {
    return ReplicaPlanner.plan(policy, new Observation(f.lag, f.partitions, f.replicas, f.lastActive, f.lastBusy, T0));
  }

  private static Fixture sink() {
    return new Fixture(0L, 12, 0, null, null);
  }

  /** A builder of observations: a sink with 12 partitions, no lag, no workers, no history. */
  record Fixture(Long lag, int partitions, int replicas, Instant lastActive, Instant lastBusy) {
    Fixture lag(Long l) {
      return new Fixture(l, partitions, replicas, lastActive, lastBusy);
    }

    Fixture lag(long l) {
      return lag(Long.valueOf(l));
    }

    Fixture partitions(int p) {
      return new Fixture(lag, p, replicas, lastActive, lastBusy);
    }

    Fixture replicas(int r) {
      return new Fixture(lag, partitions, r, lastActive, lastBusy);
    }

    Fixture lastActive(Instant t) {
      return new Fixture(lag, partitions, replicas, t, lastBusy);
    }

    Fixture lastBusy(Instant t) {
      return new Fixture(lag, partitions, replicas, lastActive, t);
    }
  }
}
