package dev.floe.operator.reconcile;

import dev.floe.operator.dependent.SinkResources;
import dev.floe.operator.model.CdcSink;
import dev.floe.operator.model.CdcSinkStatus.CompactionStatus;
import dev.floe.worker.config.Redactor;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import dev.floe.worker.config.Redactor;
import io.fabric8.kubernetes.api.model.Pod;
import dev.floe.worker.config.Redactor;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import dev.floe.worker.config.Redactor;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import dev.floe.worker.config.Redactor;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Comparator;
import java.util.Optional;

/**
 * The newest finished compaction Job of a sink: Succeeded or Failed, when, and the JSON report its
 * container left as termination message.
 */
public final class CompactionResults {
  private CompactionResults() {}

  public static Optional<CompactionStatus> latest(KubernetesClient client, CdcSink sink) {
    String ns = sink.getMetadata().getNamespace();
    return client.batch().v1().jobs().inNamespace(ns)
        .withLabels(SinkResources.selector(sink, "compaction")).list().getItems().stream()
        .map(job -> finished(job).map(c -> result(client, ns, job, c)).orElse(null))
        .filter(java.util.Objects::nonNull)
        .max(Comparator.comparing(s -> s.time));
  }

  private static Optional<JobCondition> finished(Job job) {
    if (job.getStatus() == null || job.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return job.getStatus().getConditions().stream()
        .filter(c -> ("Complete".equals(c.getType()) || "Failed".equals(c.getType())) && "True".equals(c.getStatus()))
        .findFirst();
  }

  private static CompactionStatus result(KubernetesClient client, String ns, Job job, JobCondition done) {
    CompactionStatus s = new CompactionStatus();
    s.job = job.getMetadata().getName();
    s.result = "Complete".equals(done.getType()) ? "Succeeded" : "Failed";
    s.time = done.getLastTransitionTime();
    s.report = client.pods().inNamespace(ns).withLabel("job-name", s.job).list().getItems().stream()
        .map(CompactionResults::terminationMessage)
        .filter(java.util.Objects::nonNull)
        .reduce((a, b) -> b)
        .orElse(null);
    return s;
  }

  private static String terminationMessage(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return null;
    }
    for (ContainerStatus c : pod.getStatus().getContainerStatuses()) {
      if (c.getState() != null && c.getState().getTerminated() != null && c.getState().getTerminated().getMessage() != null) {
        return Redactor.redact(c.getState().getTerminated().getMessage()); // the worker's report may quote an error
      }
    }
    return null;
  }
}
