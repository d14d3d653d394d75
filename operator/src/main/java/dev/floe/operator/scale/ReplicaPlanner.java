package dev.floe.operator.scale;

import dev.floe.operator.model.ScalingSpec;
import java.time.Duration;
import java.time.Instant;

/**
 * Decides how many workers a sink should run from its lag: a pure function of what was observed
 * and the sink's scaling policy, so every case is tested without a cluster.
 *
 * <ul>
 *   <li>A failed lag read holds the current count: unknown lag is never zero lag.
 *   <li>Lag above the activation lag wakes the sink and asks for {@code ceil(lag / lagPerReplica)}
 *       workers, at least one, at most {@code min(maxReplicas, partitions)}.
 *   <li>Lag at or below the activation lag for {@code idleAfter} takes the sink to {@code
 *       minReplicas} (zero by default); before that, one worker stays.
 *   <li>Scaling up is immediate; scaling down happens only once the lag has asked for fewer
 *       workers than run for a whole {@code scaleDownStabilization} window (as the Horizontal Pod
 *       Autoscaler does), so a lag that comes and goes between commits does not flap the
 *       Deployment.
 * </ul>
 */
public final class ReplicaPlanner {
  private ReplicaPlanner() {}

  /**
   * What the operator knows at one lag poll. {@code lag} is null when the read failed; {@code
   * lastActive} is the last time lag exceeded the activation lag, {@code lastBusy} the last time
   * the lag asked for at least the workers running (both null when unknown).
   */
  public record Observation(Long lag, int partitions, int currentReplicas, Instant lastActive, Instant lastBusy, Instant now) {}

  /** The decision: workers to run, the updated activity times, and why. */
  public record Plan(int replicas, Instant lastActive, Instant lastBusy, Reason reason) {
    public boolean changes(int current) {
      return replicas != current;
    }
  }

  /** Why the planner chose its count; shown in the Scaling condition. */
  public enum Reason {
    LAG_UNKNOWN("LagUnknown", "the lag could not be read; holding the current workers"),
    ACTIVE("Active", "lag calls for workers"),
    QUIET("Quiet", "lag is low; one worker stays until the sink has been idle long enough"),
    IDLE("Idle", "no lag for the idle time; scaled to the minimum"),
    ASLEEP("Asleep", "no lag; no workers needed"),
    STABILIZING("Stabilizing", "holding workers through the scale-down stabilization window");

    public final String condition;
    public final String description;

    Reason(String condition, String description) {
      this.condition = condition;
      this.description = description;
    }
  }

  public static Plan plan(ScalingSpec policy, Observation o) {
    int current = o.currentReplicas();
    if (o.lag() == null) {
      return new Plan(current, o.lastActive(), o.lastBusy(), Reason.LAG_UNKNOWN);
    }
    int cap = o.partitions() > 0 ? Math.min(policy.maxReplicas(), o.partitions()) : policy.maxReplicas();
    int floor = Math.min(policy.minReplicas(), cap);
    int running = Math.max(1, floor);
    long lag = o.lag();
    boolean active = lag > policy.activationLag();
    // An operator that restarts onto running workers has no record of activity: start the idle clock now.
    Instant lastActive = active || (o.lastActive() == null && current > 0) ? o.now() : o.lastActive();

    int want;
    Reason reason;
    if (active) {
      want = clamp(ceilDiv(lag, policy.lagPerReplica()), running, cap);
      reason = Reason.ACTIVE;
    } else if (current == 0) {
      want = floor;
      reason = Reason.ASLEEP;
    } else if (lastActive != null && Duration.between(lastActive, o.now()).compareTo(policy.idleAfterDuration()) < 0) {
      want = clamp(ceilDiv(lag, policy.lagPerReplica()), running, cap);
      reason = Reason.QUIET;
    } else {
      want = floor;
      reason = Reason.IDLE;
    }
    if (want >= current || reason == Reason.IDLE) { // idleAfter is the idle case's own window
      return new Plan(want, lastActive, o.now(), reason);
    }
    Instant lastBusy = o.lastBusy() == null ? o.now() : o.lastBusy();
    if (Duration.between(lastBusy, o.now()).compareTo(policy.scaleDownStabilizationDuration()) < 0) {
      return new Plan(current, lastActive, lastBusy, Reason.STABILIZING);
    }
    return new Plan(want, lastActive, o.now(), reason);
  }

  private static int ceilDiv(long lag, long perReplica) {
    long n = (lag + perReplica - 1) / perReplica;
    return (int) Math.min(Integer.MAX_VALUE, n);
  }

  private static int clamp(int n, int lo, int hi) {
    return Math.max(Math.min(n, hi), Math.min(lo, hi));
  }
}
