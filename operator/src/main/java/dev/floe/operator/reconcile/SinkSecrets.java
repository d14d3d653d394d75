package dev.floe.operator.reconcile;

import dev.floe.operator.model.CdcSink;
import dev.floe.operator.scale.LagReadException;
import dev.floe.worker.config.KnownSecrets;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * The Kafka client properties the operator's lag reader needs to reach the sink's cluster: the
 * keys of the referenced Secret, and the sink's literal properties. References to the worker's
 * environment ({@code ${env:...}}) cannot be resolved here and are left out.
 */
final class SinkSecrets {
  Map<String, String> kafkaProperties(KubernetesClient client, CdcSink sink) {
    Map<String, String> out = new HashMap<>();
    String ref = sink.getSpec().source().kafkaSecretRef();
    if (ref != null) {
      Secret secret;
      try {
        secret = client.secrets().inNamespace(sink.getMetadata().getNamespace()).withName(ref).get();
      } catch (KubernetesClientException e) {
        // forbidden when the chart was installed with rbac.readSecrets=false: a lag problem, not a reconcile failure
        throw new LagReadException("cannot read secret " + ref + " (source.kafkaSecretRef): " + e.getMessage(), e);
      }
      if (secret == null) {
        throw new LagReadException("secret " + ref + " (source.kafkaSecretRef) does not exist in namespace " + sink.getMetadata().getNamespace(), null);
      }
      if (secret.getData() != null) {
        secret.getData().forEach((k, v) -> out.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
      }
      if (secret.getStringData() != null) {
        out.putAll(secret.getStringData());
      }
      // a Kafka error that echoes one of these values is then masked in logs, status and Events
      out.forEach(KnownSecrets::registerProperty);
    }
    sink.getSpec().source().properties().forEach((k, v) -> {
      if (!v.contains("${")) {
        out.put(k, v);
      }
    });
    return out;
  }
}
