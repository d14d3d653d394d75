package dev.floe.worker.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** Reads a sink config from YAML or JSON and validates it; errors name the field and the fix. */
public final class SinkConfigLoader {
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  private SinkConfigLoader() {}

  public static SinkSpec load(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException e) {
      throw new ConfigException("(file)", "cannot read " + file + ": " + e.getMessage(), null);
    }
  }

  /** YAML is a superset of JSON, so one parser serves both. */
  public static SinkSpec parse(String text) {
    SinkSpec spec;
    try {
      spec = YAML.readValue(text, SinkSpec.class);
    } catch (UnrecognizedPropertyException e) {
      throw new ConfigException(path(e), "unknown field '" + e.getPropertyName() + "'",
          "one of " + e.getKnownPropertyIds());
    } catch (InvalidFormatException e) {
      // for an enum, say what is allowed, as a config writes it
      String allowed = e.getTargetType().isEnum() ? ": use one of " + String.join(", ", enumNames(e.getTargetType())) : "";
      throw new ConfigException(path(e), "cannot read '" + e.getValue() + "' as " + e.getTargetType().getSimpleName() + allowed, null);
    } catch (MismatchedInputException e) {
      throw new ConfigException(path(e), e.getOriginalMessage(), null);
    } catch (JsonProcessingException e) {
      throw new ConfigException("(document)", "not valid YAML or JSON: " + e.getOriginalMessage(), null);
    }
    if (spec == null) {
      throw new ConfigException("(document)", "is empty", "source: {...}\ntable: {...}");
    }
    List<ConfigProblem> problems = SinkSpecValidator.problems(spec);
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return spec;
  }

  public static String toYaml(SinkSpec spec) {
    try {
      return YAML.writeValueAsString(spec);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An enum's values as a config writes them: their {@code @JsonProperty} names. */
  static List<String> enumNames(Class<?> type) {
    return java.util.Arrays.stream(type.getFields()).filter(java.lang.reflect.Field::isEnumConstant).map(f -> {
      com.fasterxml.jackson.annotation.JsonProperty name = f.getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
      return name != null ? name.value() : f.getName();
    }).toList();
  }

  private static String path(MismatchedInputException e) {
    String p = e.getPath().stream()
        .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
        .collect(Collectors.joining("."));
    return p.replace(".[", "[");
  }
}
