package dev.floe.operator.reconcile;

import dev.floe.operator.OperatorMetrics;
import dev.floe.operator.dependent.CompactionCronJob;
import dev.floe.operator.dependent.CompactionScheduled;
import dev.floe.operator.dependent.MetricsService;
import dev.floe.operator.dependent.SinkResources;
import dev.floe.operator.dependent.WorkerConfigMap;
import dev.floe.operator.dependent.WorkerDeployment;
import dev.floe.operator.model.CdcSink;
import dev.floe.operator.model.CdcSinkStatus;
import dev.floe.operator.model.ScalingSpec;
import dev.floe.operator.scale.ConsumerLag;
import dev.floe.operator.scale.LagReadException;
import dev.floe.operator.scale.LagReader;
import dev.floe.operator.scale.ReplicaPlanner;
import dev.floe.worker.config.ConfigProblem;
import dev.floe.worker.config.Redactor;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a CdcSink: check the spec, read the lag, plan the workers, make the dependents match,
 * report. An invalid spec stops here with a condition and an Event, and the last good workers keep
 * running. The lag is polled by rescheduling the sink every {@code scaling.pollInterval}.
 */
@Workflow(explicitInvocation = true, dependents = {
    @Dependent(type = WorkerConfigMap.class),
    @Dependent(type = WorkerDeployment.class),
    @Dependent(type = MetricsService.class),
    @Dependent(type = CompactionCronJob.class, reconcilePrecondition = CompactionScheduled.class)
})
@ControllerConfiguration(name = "cdcsink")
public class CdcSinkReconciler implements Reconciler<CdcSink> {
  private static final Logger LOG = LoggerFactory.getLogger(CdcSinkReconciler.class);

  private final LagReader lagReader;
  private final SinkSecrets secrets;
  private final Clock clock;
  private final String defaultImage;
  private final OperatorMetrics metrics;

  public CdcSinkReconciler(LagReader lagReader, Clock clock, String defaultImage) {
    this(lagReader, clock, defaultImage, new OperatorMetrics());
  }

  public CdcSinkReconciler(LagReader lagReader, Clock clock, String defaultImage, OperatorMetrics metrics) {
    this.metrics = metrics;
    this.lagReader = lagReader;
    this.secrets = new SinkSecrets();
    this.clock = clock;
    this.defaultImage = defaultImage;
  }

  @Override
  public UpdateControl<CdcSink> reconcile(CdcSink sink, Context<CdcSink> context) {
    Instant now = clock.instant();
    SinkEvents events = new SinkEvents(context.getClient(), clock);
    CdcSinkStatus status = sink.getStatus() == null ? new CdcSinkStatus() : sink.getStatus();
    sink.setStatus(status);
    Long generation = sink.getMetadata().getGeneration();

    List<ConfigProblem> problems = new ArrayList<>(SpecProblems.of(sink.getSpec()));
    boolean onlyLiteralSecrets = problems.isEmpty();
    // A literal secret is refused, not rendered: the ConfigMap (and the Deployment, for worker.env)
    // is readable by far more people than Secrets are (the built-in "view" role reads ConfigMaps,
    // not Secrets), so rendering would widen who can read it. The last good workers keep running
    // on the last good config, and the condition says how to reference the secret instead.
    problems.addAll(SpecProblems.literalSecrets(sink.getSpec()));
    if (!problems.isEmpty()) {
      String reason = onlyLiteralSecrets ? "LiteralSecret" : "InvalidSpec";
      String message = "fix the spec: " + SpecProblems.describe(problems) + "; the last good workers keep running";
      boolean news = !Conditions.find(status.conditions, Conditions.READY).map(c -> Redactor.redact(message).equals(c.getMessage())).orElse(false);
      Conditions.set(status.conditions, Conditions.READY, false, reason, message, generation, now);
      Conditions.set(status.conditions, Conditions.STALLED, true, reason, message, generation, now);
      Conditions.set(status.conditions, Conditions.RECONCILING, false, reason, "waiting for a valid spec", generation, now);
      status.observedGeneration = generation;
      if (news) {
        events.warning(sink, reason, message);
      }
      return UpdateControl.patchStatus(sink);
    }

    ScalingSpec policy = sink.getSpec().scalingOrDefaults();
    int current = context.getSecondaryResource(Deployment.class)
        .map(d -> d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas()).orElse(0);
    ConsumerLag lag = readLag(sink, context, status, now);
    ReplicaPlanner.Plan plan = ReplicaPlanner.plan(policy, new ReplicaPlanner.Observation(
        lag == null ? null : lag.total(), lag == null ? 0 : lag.partitions().size(), current,
        parse(status.lastActiveTime), parse(status.lastBusyTime), now));

    var shared = context.managedWorkflowAndDependentResourceContext();
    shared.put(SinkResources.REPLICAS, plan.replicas());
    shared.put(SinkResources.DEFAULT_IMAGE, defaultImage);
    shared.reconcileManagedWorkflow();

    if (plan.changes(current)) {
      metrics.scaled(current, plan.replicas());
      String why = lag == null ? "" : ": lag " + lag.total() + " over " + lag.partitions().size() + " partitions";
      events.normal(sink, plan.replicas() > current ? "ScaledUp" : "ScaledDown",
          "workers " + current + " -> " + plan.replicas() + " (" + plan.reason().description + ")" + why);
      status.lastScaleTime = now.toString();
      LOG.info("{}/{}: workers {} -> {} ({})", sink.getMetadata().getNamespace(), sink.getMetadata().getName(), current, plan.replicas(), plan.reason().condition);
    }
    status.desiredReplicas = plan.replicas();
    status.lastActiveTime = plan.lastActive() == null ? null : plan.lastActive().toString();
    status.lastBusyTime = plan.lastBusy() == null ? null : plan.lastBusy().toString();
    status.observedGeneration = generation;
    CompactionResults.latest(context.getClient(), sink).ifPresent(c -> status.lastCompaction = c);
    SinkHealth.report(status, context.getSecondaryResource(Deployment.class).orElse(null), plan, generation, now);
    metrics.replicas(sink.getMetadata().getNamespace(), sink.getMetadata().getName(), status.replicas, plan.replicas());
    return UpdateControl.patchStatus(sink).rescheduleAfter(policy.pollIntervalDuration());
  }

  @Override
  public ErrorStatusUpdateControl<CdcSink> updateErrorStatus(CdcSink sink, Context<CdcSink> context, Exception e) {
    Instant now = clock.instant();
    CdcSinkStatus status = sink.getStatus() == null ? new CdcSinkStatus() : sink.getStatus();
    sink.setStatus(status);
    String message = "reconcile failed, retrying with backoff: " + e.getMessage();
    Conditions.set(status.conditions, Conditions.READY, false, "ReconcileError", message, sink.getMetadata().getGeneration(), now);
    Conditions.set(status.conditions, Conditions.RECONCILING, true, "ReconcileError", message, sink.getMetadata().getGeneration(), now);
    return ErrorStatusUpdateControl.patchStatus(sink);
  }

  private ConsumerLag readLag(CdcSink sink, Context<CdcSink> context, CdcSinkStatus status, Instant now) {
    if (status.lag == null) {
      status.lag = new CdcSinkStatus.LagStatus();
    }
    try {
      ConsumerLag lag = lagReader.read(sink.getSpec().source(), secrets.kafkaProperties(context.getClient(), sink));
      status.lag.total = lag.total();
      status.lag.partitions = lag.byName();
      status.lag.partitionCount = lag.partitions().size();
      status.lag.readTime = now.toString();
      status.lag.error = null;
      if (lag.lastCommit() != null) { // offsets without a stamp (a worker yet to commit) keep the last one known
        status.lastCommit = new CdcSinkStatus.CommitStatus();
        status.lastCommit.time = lag.lastCommit().toString();
        status.lastCommit.snapshotId = lag.lastSnapshotId();
      }
      metrics.lagRead(true);
      metrics.lag(sink.getMetadata().getNamespace(), sink.getMetadata().getName(), lag.total());
      return lag;
    } catch (LagReadException e) {
      metrics.lagRead(false);
      status.lag.error = Redactor.redact(e.getMessage()); // total and partitions stay as last read; replicas are held
      LOG.warn("{}/{}: {}", sink.getMetadata().getNamespace(), sink.getMetadata().getName(), status.lag.error);
      return null;
    }
  }

  private static Instant parse(String time) {
    return time == null ? null : Instant.parse(time);
  }
}
