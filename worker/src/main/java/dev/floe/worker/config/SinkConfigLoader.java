package dev.floe.worker.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads a sink config from YAML or JSON and validates it; errors name the field and the fix. */
public final class SinkConfigLoader {
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  private SinkConfigLoader() {}

  public static SinkSpec load(Path file) {
    if (!Files.exists(file)) {
      throw new ConfigException("(file)", file + " does not exist", "floe validate -c deploy/examples/orders-sink.yaml");
    }
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException("(file)", "cannot read " + file + ": " + e, null);
    }
    if (text.isBlank()) {
      throw new ConfigException("(file)", file + " is empty", "source: {...}\ntable: {...}");
    }
    return parse(text);
  }

  /**
   * A sink config, or a whole {@code CdcSink} manifest (its {@code spec} is a sink config plus the
   * operator's own fields). YAML is a superset of JSON, so one parser serves both. Every problem is
   * reported at once.
   */
  public static SinkSpec parse(String text) {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new ConfigException("(document)", "not valid YAML or JSON: " + e.getOriginalMessage()
          + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")"), null);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw new ConfigException("(document)", "is empty", "source: {...}\ntable: {...}");
    }
    if (!(root instanceof ObjectNode document)) {
      throw new ConfigException("(document)", "must be a map of fields (source, table, ...), got " + root.getNodeType().name().toLowerCase(), "source: {...}\ntable: {...}");
    }
    boolean manifest = CdcSinkManifest.isManifest(document);
    ObjectNode config = manifest ? CdcSinkManifest.sinkConfig(document) : document;
    ConfigBinder.Bound<SinkSpec> bound = ConfigBinder.bind(YAML, config, SinkSpec.class);
    List<ConfigProblem> problems = new ArrayList<>(bound.problems());
    if (bound.value() != null) {
      // A field already reported (and left out) would show again as missing: report it once.
      SinkSpecValidator.problems(bound.value()).stream()
          .filter(p -> bound.removed().stream().noneMatch(r -> within(p.field(), r) || within(r, p.field())))
          .forEach(problems::add);
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(manifest ? problems.stream().map(CdcSinkManifest::inSpec).toList() : problems);
    }
    return bound.value();
  }

  /** Whether the field is the path or lies inside it ({@code source.topics[0]} in {@code source.topics}, not {@code source.topicsX}). */
  private static boolean within(String field, String path) {
    return field.equals(path) || field.startsWith(path + ".") || field.startsWith(path + "[");
  }

  public static String toYaml(SinkSpec spec) {
    try {
      return YAML.writeValueAsString(spec);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
