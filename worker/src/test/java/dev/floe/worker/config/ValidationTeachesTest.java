package dev.floe.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code floe validate} reports every problem in one run, in the user's words, for a sink config or a CdcSink manifest. */
class ValidationTeachesTest {
  private static final String VALID = """
      source: {bootstrapServers: "kafka:9092", topics: [pg.public.orders], groupId: floe-orders}
      table: {name: analytics.orders, mergeRules: {qty: sum}}
      deadLetter: {topic: floe.dlq.orders}
      """;

  @TempDir Path dir;

  @Test
  void typeAndEnumMistakesAreAllReportedAtOnceWithoutJacksonInternals() {
    // given a config with five binding mistakes and a validation one
    String bad = """
        source: {bootstrapServers: "kafka:9092", topics: pg.public.orders, groupId: floe-orders}
        table: {name: analytics.orders, formatVersion: two, mergeRules: {qty: summ}, writeMode: upsert}
        commit: {intervall: 10s}
        onError: retry
        deadLetter: {topic: floe.dlq.orders}
        """;

    assertThatThrownBy(() -> SinkConfigLoader.parse(bad)).isInstanceOfSatisfying(ConfigException.class, e -> {
      assertThat(e.problems()).extracting(ConfigProblem::field).containsExactlyInAnyOrder(
          "source.topics", "table.formatVersion", "table.mergeRules.qty", "table.writeMode", "commit.intervall", "onError");
      assertThat(e.getMessage())
          .contains("source.topics: must be a list, got 'pg.public.orders' (for example: [pg.public.orders])")
          .contains("table.mergeRules.qty: 'summ' is not one of last, last-non-null, sum, min, max, first")
          .contains("onError: 'retry' is not one of dead-letter, fail")
          .contains("commit.intervall: unknown field 'intervall' (for example: one of [interval, maxBytes, maxRecords])")
          .doesNotContain("java.", "Cannot construct", "Cannot deserialize", "`");
    });
  }

  @Test
  void intervalsMustBeLongerThanZeroAndCompactionIsChecked() {
    String bad = VALID + """
        commit: {interval: 0s}
        compaction: {schedule: "every hour", expireAfter: -1d, orphanAfter: 0s, retainLast: 0, targetFileSize: 1000}
        """;

    assertThatThrownBy(() -> SinkConfigLoader.parse(bad)).isInstanceOfSatisfying(ConfigException.class, e ->
        assertThat(e.problems()).extracting(ConfigProblem::field).containsExactly("commit.interval", "compaction.schedule",
            "compaction.expireAfter", "compaction.orphanAfter", "compaction.targetFileSize", "compaction.retainLast"))
        .hasMessageContaining("commit.interval: must be longer than zero, got '0s'")
        .hasMessageContaining("compaction.schedule: 'every hour' is not a cron schedule");
    assertThat(SinkConfigLoader.parse(VALID + "compaction: {schedule: \"*/15 2-5 * * MON-FRI\"}").compaction().schedule()).isNotNull();
    assertThatThrownBy(() -> SinkConfigLoader.parse(VALID + "compaction: {schedule: \"0 24 * * *\"}")).as("hour 24")
        .hasMessageContaining("compaction.schedule");
    assertThat(SinkConfigLoader.parse(VALID + "compaction: {schedule: \"@daily\", expireAfter: 0s}").compaction().schedule()).isEqualTo("@daily");
  }

  @Test
  void selfCompactionIsOnByDefaultAndItsSettingsAreChecked() {
    SelfCompactionSpec defaults = SinkConfigLoader.parse(VALID).compaction().selfCompaction();
    assertThat(defaults.enabled()).isTrue();
    assertThat(defaults.idleAfterDuration()).isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(defaults.maxDeadFraction()).isEqualTo(0.2);
    assertThat(SinkConfigLoader.parse(VALID + "compaction: {selfCompaction: {enabled: false}}").compaction().selfCompaction().enabled())
        .isFalse();

    String bad = VALID + """
        compaction: {selfCompaction: {idleAfter: 0s, maxDeadFraction: 20}}
        """;
    assertThatThrownBy(() -> SinkConfigLoader.parse(bad)).isInstanceOfSatisfying(ConfigException.class, e ->
        assertThat(e.problems()).extracting(ConfigProblem::field)
            .containsExactly("compaction.selfCompaction.idleAfter", "compaction.selfCompaction.maxDeadFraction"))
        .hasMessageContaining("compaction.selfCompaction.idleAfter: must be longer than zero, got '0s' (for example: 30s)")
        .hasMessageContaining("compaction.selfCompaction.maxDeadFraction: must be a fraction of a file's rows above 0 and at most 1"
            + " (0.2: rewrite a file once a fifth of its rows are deleted), got 20.0 (for example: 0.2)");
    assertThatThrownBy(() -> SinkConfigLoader.parse(VALID + "compaction: {selfCompaction: {idleAftr: 10s}}"))
        .hasMessageContaining("compaction.selfCompaction.idleAftr: unknown field 'idleAftr'");
  }

  @Test
  void aPlaceholderTypoIsExplained() {
    assertThatThrownBy(() -> SinkConfigLoader.parse(VALID.replace("topics: [pg.public.orders]", "topicPattern: \"pg\\\\..*\"")
        .replace("name: analytics.orders, mergeRules: {qty: sum}", "name: \"mirror.{scheme}_{table}\"")))
        .hasMessageContaining("table.name: has the placeholder {scheme}, which is not one of {schema}, {table}, {topic}");
  }

  @Test
  void anEmptyOrMissingFileIsNamed() throws Exception {
    Path empty = Files.writeString(dir.resolve("empty.yaml"), "\n");
    assertThatThrownBy(() -> SinkConfigLoader.load(empty)).hasMessageContaining("(file): " + empty + " is empty");
    assertThatThrownBy(() -> SinkConfigLoader.load(dir.resolve("nope.yaml"))).hasMessageContaining("nope.yaml does not exist");
  }

  @Test
  void everyCdcSinkExampleValidatesAsAManifestAndItsProblemsAreNamedUnderSpec() throws Exception {
    List<Path> manifests;
    try (Stream<Path> files = Files.list(Path.of("..", "deploy", "examples"))) {
      manifests = files.filter(f -> f.getFileName().toString().endsWith("-cdcsink.yaml")).sorted().toList();
    }
    assertThat(manifests).hasSizeGreaterThanOrEqualTo(3);
    for (Path m : manifests) {
      assertThat(SinkConfigLoader.load(m).source()).as(m.toString()).isNotNull();
    }

    String manifest = "apiVersion: floe.dev/v1alpha1\nkind: CdcSink\nmetadata: {name: orders}\nspec:\n"
        + VALID.replace("qty: sum", "qty: add").indent(2) + "  scaling: {maxReplicas: 2}\n";
    assertThatThrownBy(() -> SinkConfigLoader.parse(manifest))
        .hasMessageContaining("spec.table.mergeRules.qty: 'add' is not one of");
    assertThatThrownBy(() -> SinkConfigLoader.parse("apiVersion: v1\nkind: ConfigMap\n"))
        .hasMessageContaining("a manifest must be a CdcSink");
  }
}
