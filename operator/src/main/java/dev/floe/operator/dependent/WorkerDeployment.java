package dev.floe.operator.dependent;

import dev.floe.operator.model.CdcSink;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import java.util.Map;

/**
 * The workers. Replicas come from the reconciler's scaling decision (never from the spec); the
 * config digest on the pod template rolls the workers when the spec changes.
 */
public class WorkerDeployment extends CRUDKubernetesDependentResource<Deployment, CdcSink> {
  public WorkerDeployment() {
    super(Deployment.class);
  }

  @Override
  protected Deployment desired(CdcSink sink, Context<CdcSink> context) {
    var shared = context.managedWorkflowAndDependentResourceContext();
    int replicas = shared.getMandatory(SinkResources.REPLICAS, Integer.class);
    String image = shared.getMandatory(SinkResources.DEFAULT_IMAGE, String.class);
    Container worker = WorkerPods.container(sink, image, "worker", WorkerPods.args("run"))
        .addNewPort().withName("http").withContainerPort(SinkResources.HTTP_PORT).endPort()
        .withNewLivenessProbe().withNewHttpGet().withPath("/healthz").withPort(new IntOrString("http")).endHttpGet()
        .withPeriodSeconds(10).withFailureThreshold(6).endLivenessProbe()
        .withNewReadinessProbe().withNewHttpGet().withPath("/readyz").withPort(new IntOrString("http")).endHttpGet()
        .withPeriodSeconds(5).endReadinessProbe()
        .build();
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(SinkResources.workerName(sink))
        .withNamespace(sink.getMetadata().getNamespace())
        .withLabels(SinkResources.labels(sink, "worker"))
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector().withMatchLabels(SinkResources.selector(sink, "worker")).endSelector()
        // one worker leaves before its replacement joins: fewer rebalances of the consumer group
        .withNewStrategy().withType("RollingUpdate").withNewRollingUpdate()
        .withMaxSurge(new IntOrString(0)).withMaxUnavailable(new IntOrString(1)).endRollingUpdate().endStrategy()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(SinkResources.labels(sink, "worker"))
        .withAnnotations(Map.of(SinkResources.CONFIG_HASH, SinkResources.configHash(sink),
            "prometheus.io/scrape", "true", "prometheus.io/port", String.valueOf(SinkResources.HTTP_PORT)))
        .endMetadata()
        .withSpec(WorkerPods.pod(sink, worker, "Always"))
        .endTemplate()
        .endSpec()
        .build();
  }
}
