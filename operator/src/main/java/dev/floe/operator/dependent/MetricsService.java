package dev.floe.operator.dependent;

import dev.floe.operator.model.CdcSink;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import java.util.Map;

/** The workers' Prometheus endpoint, as a Service that scrape configs and ServiceMonitors find. */
public class MetricsService extends CRUDKubernetesDependentResource<Service, CdcSink> {
  public MetricsService() {
    super(Service.class);
  }

  @Override
  protected Service desired(CdcSink sink, Context<CdcSink> context) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(SinkResources.metricsName(sink))
        .withNamespace(sink.getMetadata().getNamespace())
        .withLabels(SinkResources.labels(sink, "worker"))
        .withAnnotations(Map.of("prometheus.io/scrape", "true", "prometheus.io/port", String.valueOf(SinkResources.HTTP_PORT),
            "prometheus.io/path", "/metrics"))
        .endMetadata()
        .withNewSpec()
        .withSelector(SinkResources.selector(sink, "worker"))
        .addNewPort().withName("http").withPort(SinkResources.HTTP_PORT).withTargetPort(new IntOrString("http")).endPort()
        .endSpec()
        .build();
  }
}
