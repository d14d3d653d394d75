package dev.floe.operator.reconcile;

import dev.floe.operator.model.CdcSinkStatus;
import dev.floe.operator.scale.ReplicaPlanner;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import java.time.Instant;

/**
 * Turns what was observed into the sink's conditions: Ready, Reconciling and Stalled as kstatus
 * reads them (Argo CD, Flux), and Scaling.
 */
final class SinkHealth {
  private SinkHealth() {}

  static void report(CdcSinkStatus status, Deployment deployment, ReplicaPlanner.Plan plan, Long generation, Instant now) {
    DeploymentStatus d = deployment == null ? null : deployment.getStatus();
    int running = d == null || d.getReplicas() == null ? 0 : d.getReplicas();
    int ready = d == null || d.getReadyReplicas() == null ? 0 : d.getReadyReplicas();
    int updated = d == null || d.getUpdatedReplicas() == null ? 0 : d.getUpdatedReplicas();
    int desired = plan.replicas();
    status.replicas = running;
    status.replicasSummary = running + "/" + desired;
    String lag = status.lag == null || status.lag.total == null ? "lag unknown" : "lag " + status.lag.total;
    if (status.lag != null && status.lag.error != null) {
      lag += " (last read failed: " + status.lag.error + ")";
    }

    boolean stalled = d != null && d.getConditions() != null && d.getConditions().stream()
        .anyMatch(c -> "Progressing".equals(c.getType()) && "False".equals(c.getStatus()) && "ProgressDeadlineExceeded".equals(c.getReason()));
    boolean deploymentCurrent = deployment != null && (d == null || d.getObservedGeneration() == null
        || deployment.getMetadata().getGeneration() == null || d.getObservedGeneration() >= deployment.getMetadata().getGeneration());
    boolean ready0 = desired == 0 && running == 0;
    boolean readyN = desired > 0 && deploymentCurrent && ready >= desired && updated >= desired && running == desired;

    if (ready0) {
      Conditions.set(status.conditions, Conditions.READY, true, "ScaledToZero", "idle, no workers running; " + lag, generation, now);
    } else if (readyN) {
      Conditions.set(status.conditions, Conditions.READY, true, "WorkersReady", ready + " of " + desired + " workers ready; " + lag, generation, now);
    } else {
      Conditions.set(status.conditions, Conditions.READY, false, stalled ? "RolloutStalled" : "WorkersStarting",
          ready + " of " + desired + " workers ready; " + lag, generation, now);
    }
    Conditions.set(status.conditions, Conditions.STALLED, stalled, stalled ? "RolloutStalled" : "AsExpected",
        stalled ? "the worker Deployment exceeded its progress deadline: see kubectl describe deployment" : "", generation, now);
    boolean reconciling = !(ready0 || readyN) && !stalled;
    Conditions.set(status.conditions, Conditions.RECONCILING, reconciling, reconciling ? "RollingOut" : "Reconciled",
        reconciling ? "waiting for " + desired + " workers (" + ready + " ready)" : "", generation, now);
    if (ready != desired) {
      Conditions.set(status.conditions, Conditions.SCALING, true, desired > ready ? "ScalingUp" : "ScalingDown",
          ready + " -> " + desired + " workers: " + plan.reason().description + "; " + lag, generation, now);
    } else {
      Conditions.set(status.conditions, Conditions.SCALING, false, plan.reason().condition, plan.reason().description + "; " + lag, generation, now);
    }
  }
}
