package dev.floe.operator.dependent;

import dev.floe.operator.model.CdcSink;
import dev.floe.worker.config.SinkConfigLoader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/** Names, labels and the rendered worker config shared by a sink's dependent resources. */
public final class SinkResources {
  public static final String CONFIG_FILE = "sink.yaml";
  public static final String CONFIG_DIR = "/etc/floe/config";
  public static final String SECRETS_DIR = "/etc/floe/secrets";
  public static final String CONFIG_HASH = "floe.dev/config-hash";
  public static final String SINK_LABEL = "floe.dev/sink";
  public static final int HTTP_PORT = 8080;
  /** Key under which the reconciler hands the planned worker count to the Deployment dependent. */
  public static final String REPLICAS = "floe.replicas";
  /** Key under which the reconciler hands the default worker image to the dependents. */
  public static final String DEFAULT_IMAGE = "floe.defaultImage";

  private SinkResources() {}

  public static String workerName(CdcSink sink) {
    return sink.getMetadata().getName() + "-worker";
  }

  public static String configName(CdcSink sink) {
    return sink.getMetadata().getName() + "-worker-config";
  }

  public static String metricsName(CdcSink sink) {
    return sink.getMetadata().getName() + "-metrics";
  }

  public static String compactionName(CdcSink sink) {
    return sink.getMetadata().getName() + "-compact";
  }

  /** Labels on every dependent; the first two select the worker pods. */
  public static Map<String, String> labels(CdcSink sink, String component) {
    return Map.of(
        SINK_LABEL, sink.getMetadata().getName(),
        "app.kubernetes.io/component", component,
        "app.kubernetes.io/name", "floe",
        "app.kubernetes.io/managed-by", "floe-operator");
  }

  public static Map<String, String> selector(CdcSink sink, String component) {
    return Map.of(SINK_LABEL, sink.getMetadata().getName(), "app.kubernetes.io/component", component);
  }

  /** The worker's config file, exactly what {@code floe run --config} reads. */
  public static String renderConfig(CdcSink sink) {
    return SinkConfigLoader.toYaml(sink.getSpec().sinkSpec());
  }

  /** A digest of the rendered config: put on the pod template, a change rolls the workers. */
  public static String configHash(CdcSink sink) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(renderConfig(sink).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JVM", e);
    }
  }
}
