package dev.floe.operator.reconcile;

import dev.floe.operator.model.CdcSink;
import dev.floe.worker.config.Redactor;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Records Kubernetes Events on a CdcSink (what {@code kubectl describe cdcsink} shows). */
public final class SinkEvents {
  private static final Logger LOG = LoggerFactory.getLogger(SinkEvents.class);
  public static final String COMPONENT = "floe-operator";

  private final KubernetesClient client;
  private final Clock clock;

  public SinkEvents(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  public void normal(CdcSink sink, String reason, String message) {
    record(sink, "Normal", reason, message);
  }

  public void warning(CdcSink sink, String reason, String message) {
    record(sink, "Warning", reason, message);
  }

  private void record(CdcSink sink, String type, String reason, String message) {
    String now = clock.instant().toString();
    var meta = sink.getMetadata();
    try {
      client.v1().events().inNamespace(meta.getNamespace()).resource(new EventBuilder()
          .withNewMetadata().withName(meta.getName() + "." + UUID.randomUUID().toString().substring(0, 13)).withNamespace(meta.getNamespace()).endMetadata()
          .withInvolvedObject(new ObjectReferenceBuilder()
              .withApiVersion(sink.getApiVersion()).withKind(sink.getKind())
              .withName(meta.getName()).withNamespace(meta.getNamespace()).withUid(meta.getUid())
              .withResourceVersion(meta.getResourceVersion()).build())
          .withType(type).withReason(reason).withMessage(Redactor.redact(message)) // Events are widely readable
          .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
          .withNewSource().withComponent(COMPONENT).endSource()
          .build()).create();
    } catch (KubernetesClientException e) {
      // An Event is a courtesy; status carries the same facts. Never fail a reconcile over it.
      LOG.warn("could not record event {} on {}/{}: {}", reason, meta.getNamespace(), meta.getName(), e.getMessage());
    }
  }
}
