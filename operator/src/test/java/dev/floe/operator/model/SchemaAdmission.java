package dev.floe.operator.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.re2j.Pattern;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a Kubernetes API server's admission checks of a CRD's schema would say about an object, for
 * tests without an API server: required fields, enums, patterns (RE2, as Go's regexp), minimums,
 * maximums, lengths, and every x-kubernetes-validations rule compiled and run with Google's CEL
 * for Java, with the API server's semantics: {@code self} is the value at the rule's path, and a
 * rule runs only where that value is present.
 */
final class SchemaAdmission {
  private static final CelCompiler COMPILER = CelCompilerFactory.standardCelCompilerBuilder()
      .setStandardMacros(CelStandardMacro.STANDARD_MACROS) // has(), all(), exists(): the API server's macros
      .addVar("self", SimpleType.DYN).setResultType(SimpleType.BOOL).build();
  private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

  private final JsonNode schema;

  SchemaAdmission(JsonNode schema) {
    this.schema = schema;
  }

  static SchemaAdmission of(Path crd) throws IOException {
    JsonNode tree = CrdPostProcessor.YAML.readTree(Files.readString(crd));
    return new SchemaAdmission(tree.path("spec").path("versions").get(0).path("schema").path("openAPIV3Schema"));
  }

  /** Every x-kubernetes-validations rule of the schema, by path: each must compile. */
  Map<String, List<String>> rules() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    CrdSchema.walk(schema, (path, node) -> node.path("x-kubernetes-validations")
        .forEach(r -> out.computeIfAbsent(path, p -> new ArrayList<>()).add(r.get("rule").asText())));
    return out;
  }

  /** The errors admission would report for an object (a YAML tree of a whole CdcSink), empty when it is accepted. */
  List<String> errors(Object object) {
    List<String> out = new ArrayList<>();
    check("", schema, object, out);
    return out;
  }

  @SuppressWarnings("unchecked")
  private static void check(String path, JsonNode s, Object value, List<String> out) {
    if (value == null) {
      return;
    }
    String type = s.path("type").asText("");
    if (value instanceof Map<?, ?> map) {
      for (JsonNode required : s.path("required")) {
        if (!map.containsKey(required.asText())) {
          out.add(join(path, required.asText()) + ": Required value");
        }
      }
      for (Map.Entry<?, ?> e : map.entrySet()) {
        JsonNode p = s.path("properties").get((String) e.getKey());
        if (p != null) {
          check(join(path, (String) e.getKey()), p, e.getValue(), out);
        } else if (s.has("additionalProperties") && s.get("additionalProperties").isObject()) {
          check(join(path, (String) e.getKey()), s.get("additionalProperties"), e.getValue(), out);
        }
      }
    } else if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        check(path + "[" + i + "]", s.path("items"), list.get(i), out);
      }
    } else if (value instanceof String text) {
      if (s.has("pattern") && !Pattern.compile(s.get("pattern").asText()).matcher(text).find()) {
        out.add(path + ": Invalid value: \"" + text + "\": should match '" + s.get("pattern").asText() + "'");
      }
      if (s.has("maxLength") && text.length() > s.get("maxLength").asLong()) {
        out.add(path + ": Too long: may not be more than " + s.get("maxLength").asLong());
      }
    } else if (value instanceof Number n && ("integer".equals(type) || "number".equals(type))) {
      if (s.has("minimum") && n.doubleValue() < s.get("minimum").asDouble()) {
        out.add(path + ": Invalid value: " + n + ": should be greater than or equal to " + s.get("minimum").asDouble());
      }
      if (s.has("maximum") && n.doubleValue() > s.get("maximum").asDouble()) {
        out.add(path + ": Invalid value: " + n + ": should be less than or equal to " + s.get("maximum").asDouble());
      }
    }
    if (s.has("enum")) {
      List<String> allowed = new ArrayList<>();
      s.get("enum").forEach(v -> allowed.add(v.asText()));
      if (!allowed.contains(String.valueOf(value))) {
        out.add(path + ": Unsupported value: \"" + value + "\": supported values: " + allowed);
      }
    }
    for (JsonNode rule : s.path("x-kubernetes-validations")) {
      if (!evaluate(rule.get("rule").asText(), value)) {
        out.add(path + ": Invalid value: " + rule.path("message").asText(rule.get("rule").asText()));
      }
    }
  }

  /** Compiles a rule as the API server does when the CRD is created; throws when it does not compile. */
  static void compile(String rule) {
    try {
      COMPILER.compile(rule).getAst();
    } catch (Exception e) {
      throw new IllegalStateException("rule does not compile: " + rule + ": " + e.getMessage(), e);
    }
  }

  static boolean evaluate(String rule, Object self) {
    try {
      CelAbstractSyntaxTree ast = COMPILER.compile(rule).getAst();
      return (Boolean) RUNTIME.createProgram(ast).eval(Map.of("self", cel(self)));
    } catch (Exception e) {
      throw new IllegalStateException("rule does not compile or run: " + rule + ": " + e.getMessage(), e);
    }
  }

  /** CEL's values: int64 for every integer (YAML gives Integer), the rest as is. */
  private static Object cel(Object v) {
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, x) -> out.put((String) k, cel(x)));
      return out;
    }
    if (v instanceof List<?> l) {
      return l.stream().map(SchemaAdmission::cel).toList();
    }
    return v;
  }

  private static String join(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

}
