package dev.floe.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.operator.reconcile.SpecProblems;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed CRD refuses at admission what the operator would report as Stalled, and accepts
 * what it would run: each case goes through the CRD's own schema (CEL rules run by cel-java, see
 * {@link SchemaAdmission}) and through {@link SpecProblems} ({@code floe validate}), which must agree.
 */
class AdmissionRulesTest {
  static SchemaAdmission admission;

  @BeforeAll
  static void load() throws IOException {
    admission = SchemaAdmission.of(Path.of("../crds/cdcsinks.floe.dev-v1.yml"));
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        ok("a plain sink", Map.of()),
        ok("merge rules by name", Map.of("table.mergeRules", Map.of("qty", "sum", "note", "last-non-null"))),
        no("an unknown merge rule", Map.of("table.mergeRules", Map.of("qty", "add")), "Unsupported value: \"add\""),
        ok("a short interval", Map.of("commit.interval", "500ms")),
        ok("an ISO-8601 interval", Map.of("commit.interval", "PT10S")),
        no("a zero interval", Map.of("commit.interval", "0s"), "longer than zero"),
        no("an interval in words", Map.of("commit.interval", "ten seconds"), "longer than zero"),
        no("an interval without a unit", Map.of("commit.interval", "10"), "longer than zero"),
        ok("a poll interval", Map.of("scaling.pollInterval", "15s")),
        no("a zero poll interval", Map.of("scaling.pollInterval", "0ms"), "longer than zero"),
        ok("idle right away", Map.of("scaling.idleAfter", "0s")),
        no("an idle time in words", Map.of("scaling.idleAfter", "5 minutes"), "scaling.idleAfter: Invalid value"),
        no("a negative stabilization", Map.of("scaling.scaleDownStabilization", "-1m"), "scaling.scaleDownStabilization: Invalid value"),
        ok("an expiry in days", Map.of("compaction.expireAfter", "3d")),
        no("an expiry in words", Map.of("compaction.expireAfter", "3 days"), "compaction.expireAfter: Invalid value"),
        ok("an ISO-8601 orphan age", Map.of("compaction.orphanAfter", "P3D")),
        no("a zero orphan age", Map.of("compaction.orphanAfter", "P0D"), "longer than zero"),
        ok("a cron schedule", Map.of("compaction.schedule", "17 */2 * * *")),
        ok("a cron macro", Map.of("compaction.schedule", "@daily")),
        no("a schedule in words", Map.of("compaction.schedule", "every 2 hours"), "compaction.schedule: Invalid value"),
        no("a schedule of four fields", Map.of("compaction.schedule", "0 3 * *"), "compaction.schedule: Invalid value"),
        ok("a hadoop catalog needs no uri", Map.of("table.catalog", Map.of("type", "hadoop", "warehouse", "s3://lake/wh"))),
        no("a jdbc catalog without uri", Map.of("table.catalog", Map.of("type", "jdbc", "warehouse", "s3://lake/wh")), "uri is required"),
        no("a nessie catalog without uri", Map.of("table.catalog", Map.of("type", "nessie")), "uri is required"),
        no("a local catalog without warehouse", Map.of("table.catalog", Map.of("type", "local")), "warehouse is required"),
        no("an unknown catalog type", Map.of("table.catalog", Map.of("type", "glue", "uri", "x")), "Unsupported value: \"glue\""),
        ok("onError fail needs no dead-letter topic", Map.of("deadLetter", REMOVE, "onError", "fail")),
        no("dead-letter without a topic", Map.of("deadLetter", REMOVE), "deadLetter.topic is required"),
        no("dead-letter with an empty topic", Map.of("deadLetter", Map.of("topic", "")), "deadLetter.topic: Invalid value"),
        no("a dead-letter topic Kafka refuses", Map.of("deadLetter", Map.of("topic", "dead letters")), "deadLetter.topic: Invalid value"),
        ok("a name template", Map.of("table.name", "lake.{schema}_{table}", "source.topics", REMOVE, "source.topicPattern", "pg\\.public\\..*")),
        no("a name template with a primary key", Map.of("table.name", "lake.{schema}_{table}", "table.primaryKey", List.of("id")),
            "primaryKey names columns of one table"),
        no("a name template with partitioning", Map.of("table.name", "lake.{table}", "table.partitionBy", List.of("day(created_at)")),
            "partitionBy names columns of one table"),
        ok("a primary key without a template", Map.of("table.primaryKey", List.of("id"), "table.partitionBy", List.of("day(created_at)"))),
        no("a table name without namespace", Map.of("table.name", "orders"), "table.name: Invalid value"),
        ok("replicas within bounds", Map.of("scaling.minReplicas", 2, "scaling.maxReplicas", 3)),
        no("more minimum replicas than maximum", Map.of("scaling.minReplicas", 5, "scaling.maxReplicas", 3), "minReplicas must not exceed"),
        no("more minimum replicas than the default maximum", Map.of("scaling.minReplicas", 5), "minReplicas must not exceed"),
        no("both topics and a topic pattern", Map.of("source.topicPattern", "pg\\..*"), "exactly one of topics and topicPattern"),
        no("no group", Map.of("source.groupId", REMOVE), "spec.source.groupId: Required value"),
        no("format version 4", Map.of("table.formatVersion", 4), "spec.table.formatVersion: Invalid value"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void admissionAndTheOperatorAgree(String name, Map<String, Object> change, String refusal) {
    Map<String, Object> sink = sink(change);
    List<String> errors = admission.errors(sink);
    if (refusal == null) {
      assertThat(errors).as("admission of " + name).isEmpty();
    } else {
      assertThat(errors).as("admission of " + name).anyMatch(e -> e.contains(refusal));
    }
    assertThat(operatorAccepts(sink)).as("SpecProblems on " + name + " (floe validate)").isEqualTo(refusal == null);
  }

  @Test
  void everyRuleOfTheCrdCompiles() {
    Map<String, List<String>> rules = admission.rules();
    assertThat(rules).containsKeys("spec", "spec.source", "spec.table", "spec.table.catalog", "spec.scaling",
        "spec.commit.interval", "spec.scaling.pollInterval", "spec.compaction.orphanAfter");
    rules.values().forEach(list -> list.forEach(SchemaAdmission::compile));
  }

  // ---- helpers

  static final Object REMOVE = new Object();

  static Arguments ok(String name, Map<String, Object> change) {
    return Arguments.of(name, change, null);
  }

  static Arguments no(String name, Map<String, Object> change, String refusal) {
    return Arguments.of(name, change, refusal);
  }

  /** A valid CdcSink with changes at spec paths (a.b.c). */
  @SuppressWarnings("unchecked")
  static Map<String, Object> sink(Map<String, Object> change) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("source", new LinkedHashMap<>(Map.of("bootstrapServers", "kafka:9092", "topics", List.of("pg.public.orders"), "groupId", "floe-orders")));
    spec.put("table", new LinkedHashMap<>(Map.of("name", "analytics.orders",
        "catalog", new LinkedHashMap<>(Map.of("type", "rest", "uri", "http://iceberg-rest:8181", "warehouse", "s3://lake/wh")))));
    spec.put("deadLetter", new LinkedHashMap<>(Map.of("topic", "floe.dlq.orders")));
    change.forEach((path, value) -> {
      String[] parts = path.split("\\.");
      Map<String, Object> at = spec;
      for (int i = 0; i < parts.length - 1; i++) {
        at = (Map<String, Object>) at.computeIfAbsent(parts[i], k -> new LinkedHashMap<>());
      }
      if (value == REMOVE) {
        at.remove(parts[parts.length - 1]);
      } else {
        at.put(parts[parts.length - 1], value);
      }
    });
    return Map.of("apiVersion", "floe.dev/v1alpha1", "kind", "CdcSink", "metadata", Map.of("name", "orders"), "spec", spec);
  }

  private static boolean operatorAccepts(Map<String, Object> sink) {
    CdcSinkSpec spec;
    try {
      spec = new ObjectMapper().convertValue(sink.get("spec"), CdcSinkSpec.class);
    } catch (IllegalArgumentException e) {
      return false; // an unknown enum value does not even read
    }
    return SpecProblems.of(spec).isEmpty();
  }
}
