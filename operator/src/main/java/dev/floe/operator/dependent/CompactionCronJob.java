package dev.floe.operator.dependent;

import dev.floe.operator.model.CdcSink;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import java.util.Map;

/**
 * {@code floe compact} on the sink's schedule, with the workers' image and config. The report
 * goes to the container's termination message, where the reconciler reads it into status.
 */
public class CompactionCronJob extends CRUDKubernetesDependentResource<CronJob, CdcSink> {
  public CompactionCronJob() {
    super(CronJob.class);
  }

  @Override
  protected CronJob desired(CdcSink sink, Context<CdcSink> context) {
    String image = context.managedWorkflowAndDependentResourceContext().getMandatory(SinkResources.DEFAULT_IMAGE, String.class);
    Container compact = WorkerPods.container(sink, image, "compact", WorkerPods.args("compact"))
        .withTerminationMessagePolicy("File")
        .build();
    return new CronJobBuilder()
        .withNewMetadata()
        .withName(SinkResources.compactionName(sink))
        .withNamespace(sink.getMetadata().getNamespace())
        .withLabels(SinkResources.labels(sink, "compaction"))
        .endMetadata()
        .withNewSpec()
        .withSchedule(sink.getSpec().compaction().schedule())
        .withConcurrencyPolicy("Forbid") // two compactions of one table only fight each other
        .withSuccessfulJobsHistoryLimit(3)
        .withFailedJobsHistoryLimit(3)
        .withNewJobTemplate()
        .withNewMetadata().withLabels(SinkResources.labels(sink, "compaction")).endMetadata()
        .withNewSpec()
        .withBackoffLimit(2)
        .withNewTemplate()
        .withNewMetadata().withLabels(SinkResources.labels(sink, "compaction"))
        .withAnnotations(Map.of(SinkResources.CONFIG_HASH, SinkResources.configHash(sink))).endMetadata()
        .withSpec(WorkerPods.pod(sink, compact, "Never"))
        .endTemplate()
        .endSpec()
        .endJobTemplate()
        .endSpec()
        .build();
  }
}
