package dev.floe.operator.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Paths into a CRD's OpenAPI schema as people write them: {@code spec.worker.env[].name}, where
 * {@code []} is a list's items and the empty path is the root.
 */
final class CrdSchema {
  private CrdSchema() {}

  /** The schema node at a path, or null. */
  static JsonNode at(JsonNode root, String path) {
    JsonNode node = root;
    if (path.isEmpty()) {
      return node;
    }
    for (String part : path.split("\\.")) {
      boolean items = part.endsWith("[]");
      String name = items ? part.substring(0, part.length() - 2) : part;
      node = node.path("properties").get(name);
      if (node == null) {
        return null;
      }
      if (items) {
        node = node.get("items");
        if (node == null) {
          return null;
        }
      }
    }
    return node;
  }

  /** Visits every field and list item under the root with its path, the root first. */
  static void walk(JsonNode root, BiConsumer<String, JsonNode> visitor) {
    walk("", root, visitor);
  }

  private static void walk(String path, JsonNode node, BiConsumer<String, JsonNode> visitor) {
    visitor.accept(path, node);
    if (node.has("items")) {
      walk(path + "[]", node.get("items"), visitor);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.path("properties").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      walk(path.isEmpty() ? p.getKey() : path + "." + p.getKey(), p.getValue(), visitor);
    }
  }
}
