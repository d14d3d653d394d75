package dev.floe.worker.config;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Binds a config tree to its record, reporting every field Jackson cannot bind rather than the
 * first: each failing field becomes a problem in the user's words (a list, e.g. [x]; one of a, b),
 * is removed, and binding goes on. The fields removed are returned so that checks of what is then
 * missing do not report the same mistake twice.
 */
final class ConfigBinder {
  private static final int MOST_PROBLEMS = 50;
  private static final ObjectMapper PLAIN = new ObjectMapper();

  record Bound<T>(T value, List<ConfigProblem> problems, List<String> removed) {}

  private ConfigBinder() {}

  static <T> Bound<T> bind(ObjectMapper mapper, ObjectNode tree, Class<T> type) {
    List<ConfigProblem> problems = new ArrayList<>();
    List<String> removed = new ArrayList<>();
    while (problems.size() < MOST_PROBLEMS) {
      try {
        return new Bound<>(mapper.treeToValue(tree, type), problems, removed);
      } catch (JsonMappingException e) {
        String path = path(e.getPath());
        problems.add(new ConfigProblem(path.isEmpty() ? "(document)" : path, problem(e, valueAt(tree, e.getPath())), example(e, valueAt(tree, e.getPath()))));
        if (e.getPath().isEmpty() || !remove(tree, e.getPath())) {
          break;
        }
        removed.add(path);
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        problems.add(new ConfigProblem("(document)", "not valid YAML or JSON: " + e.getOriginalMessage(), null));
        break;
      }
    }
    return new Bound<>(null, problems, removed);
  }

  private static String problem(JsonMappingException e, JsonNode given) {
    if (e instanceof UnrecognizedPropertyException u) {
      return "unknown field '" + u.getPropertyName() + "'";
    }
    if (e instanceof InvalidFormatException f && f.getTargetType() != null && f.getTargetType().isEnum()) {
      return "'" + f.getValue() + "' is not one of " + String.join(", ", enumNames(f.getTargetType()));
    }
    if (e instanceof ValueInstantiationException v && v.getCause() != null) {
      return v.getCause().getMessage();
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
      return "must be " + expected(m.getTargetType()) + (given == null || given.isMissingNode() ? "" : ", got " + shown(given));
    }
    return "cannot be read: " + e.getOriginalMessage();
  }

  private static String example(JsonMappingException e, JsonNode given) {
    if (e instanceof UnrecognizedPropertyException u) {
      return "one of " + u.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList();
    }
    if (e instanceof InvalidFormatException f && f.getTargetType() != null && f.getTargetType().isEnum()) {
      return enumNames(f.getTargetType()).get(0);
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null && Collection.class.isAssignableFrom(m.getTargetType())) {
      return "[" + (given != null && given.isValueNode() ? given.asText() : "...") + "]";
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null && Map.class.isAssignableFrom(m.getTargetType())) {
      return "{name: value}";
    }
    return null;
  }

  private static String expected(Class<?> type) {
    if (Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "a list";
    }
    if (Map.class.isAssignableFrom(type)) {
      return "a map of name: value";
    }
    if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
      return "a whole number";
    }
    if (Number.class.isAssignableFrom(type) || type.isPrimitive() && type != boolean.class) {
      return "a number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == String.class) {
      return "a text value";
    }
    if (type.isEnum()) {
      return "one of " + String.join(", ", enumNames(type));
    }
    return "a map of fields";
  }

  private static List<String> enumNames(Class<?> type) {
    return Arrays.stream(type.getEnumConstants()).map(c -> PLAIN.convertValue(c, String.class)).toList();
  }

  private static String shown(JsonNode given) {
    String s = given.isTextual() ? "'" + given.textValue() + "'" : given.isArray() ? "a list" : given.isObject() ? "a map" : given.toString();
    return s.length() > 80 ? s.substring(0, 79) + "…'" : s;
  }

  private static JsonNode valueAt(JsonNode tree, List<JsonMappingException.Reference> path) {
    JsonNode node = tree;
    for (JsonMappingException.Reference r : path) {
      if (node == null) {
        return null;
      }
      node = r.getFieldName() != null ? node.get(r.getFieldName()) : node.get(r.getIndex());
    }
    return node;
  }

  private static boolean remove(JsonNode tree, List<JsonMappingException.Reference> path) {
    JsonNode parent = valueAt(tree, path.subList(0, path.size() - 1));
    JsonMappingException.Reference last = path.get(path.size() - 1);
    if (parent instanceof ObjectNode o && last.getFieldName() != null && o.has(last.getFieldName())) {
      o.remove(last.getFieldName());
      return true;
    }
    if (parent instanceof ArrayNode a && last.getFieldName() == null && last.getIndex() >= 0 && last.getIndex() < a.size()) {
      a.remove(last.getIndex());
      return true;
    }
    return false;
  }

  static String path(List<JsonMappingException.Reference> refs) {
    return refs.stream()
        .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
        .collect(Collectors.joining("."))
        .replace(".[", "[");
  }
}
