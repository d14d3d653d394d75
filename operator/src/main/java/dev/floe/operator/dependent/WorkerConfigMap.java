package dev.floe.operator.dependent;

import dev.floe.operator.model.CdcSink;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import java.util.Map;

/** The worker's config file, rendered from the sink's spec. */
public class WorkerConfigMap extends CRUDKubernetesDependentResource<ConfigMap, CdcSink> {
  public WorkerConfigMap() {
    super(ConfigMap.class);
  }

  @Override
  protected ConfigMap desired(CdcSink sink, Context<CdcSink> context) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(SinkResources.configName(sink))
        .withNamespace(sink.getMetadata().getNamespace())
        .withLabels(SinkResources.labels(sink, "worker"))
        .endMetadata()
        .withData(Map.of(SinkResources.CONFIG_FILE, SinkResources.renderConfig(sink)))
        .build();
  }
}
