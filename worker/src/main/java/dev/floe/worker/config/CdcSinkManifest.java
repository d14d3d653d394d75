package dev.floe.worker.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * A {@code CdcSink} manifest read as a sink config: its {@code spec} without the fields only the
 * operator reads ({@code scaling}, {@code worker}, which the CRD's schema checks at admission), so
 * {@code floe validate} takes the file a user is about to {@code kubectl apply}.
 */
final class CdcSinkManifest {
  static final String API_GROUP = "floe.dev/";
  static final String KIND = "CdcSink";
  private static final List<String> OPERATOR_FIELDS = List.of("scaling", "worker");

  private CdcSinkManifest() {}

  static boolean isManifest(ObjectNode document) {
    return document.has("apiVersion") || document.has("kind");
  }

  /** A problem of the sink config, named by where it is in the manifest. */
  static ConfigProblem inSpec(ConfigProblem p) {
    return p.field().startsWith("(") ? p : new ConfigProblem("spec." + p.field(), p.problem(), p.example());
  }

  static ObjectNode sinkConfig(ObjectNode manifest) {
    String kind = manifest.path("kind").asText(null);
    String api = manifest.path("apiVersion").asText("");
    if (!KIND.equals(kind) || !api.startsWith(API_GROUP)) {
      throw new ConfigException("kind", "a manifest must be a CdcSink of " + API_GROUP + "*, got kind " + kind + " of apiVersion '" + api + "'",
          "apiVersion: floe.dev/v1alpha1\nkind: CdcSink");
    }
    JsonNode spec = manifest.get("spec");
    if (!(spec instanceof ObjectNode s)) {
      throw new ConfigException("spec", "is required in a CdcSink, and must be a map of fields", "spec: {source: {...}, table: {...}}");
    }
    ObjectNode config = s.deepCopy();
    OPERATOR_FIELDS.forEach(config::remove);
    return config;
  }
}
