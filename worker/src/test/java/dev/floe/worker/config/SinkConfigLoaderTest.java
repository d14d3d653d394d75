package dev.floe.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.worker.fold.MergeRule;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A sink config reads from YAML or JSON, and a bad one says which field, what is wrong, and what is right. */
class SinkConfigLoaderTest {
  private static final String VALID = """
      source:
        bootstrapServers: kafka:9092
        topics: [pg.public.orders]
        groupId: floe-orders
      table:
        catalog: {type: rest, uri: "http://iceberg:8181", properties: {s3.secret-access-key: "${env:S3_SECRET}"}}
        name: analytics.orders
        partitionBy: ["day(created_at)", "bucket(16, id)"]
        formatVersion: 3
        mergeRules: {requests: sum, name: last-non-null}
      commit: {interval: 30s, maxRecords: 100000}
      deadLetter: {topic: floe.dlq.orders}
      """;

  @Test
  void aValidYamlConfigReadsIntoTheModelWithDefaults() {
    SinkSpec spec = SinkConfigLoader.parse(VALID);
    assertThat(spec.sinkId()).isEqualTo("floe-orders");
    assertThat(spec.table().ruleFor("requests")).isEqualTo(MergeRule.SUM);
    assertThat(spec.table().ruleFor("other")).isEqualTo(MergeRule.LAST);
    assertThat(spec.table().writeMode()).as("unset: an existing table keeps its recorded mode").isNull();
    assertThat(spec.table().writeModeForNewTable()).isEqualTo(WriteMode.POSITION_DELETES);
    assertThat(spec.commit().intervalDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(spec.commit().maxBytes()).isEqualTo(256L << 20);
    assertThat(spec.onError()).isEqualTo(OnError.DEAD_LETTER);
    assertThat(SinkConfigLoader.parse(SinkConfigLoader.toYaml(spec))).isEqualTo(spec);
  }

  @Test
  void everyProblemIsReportedWithItsFieldAndAnExample() {
    String bad = """
        source: {topics: [a], topicPattern: "b.*", bootstrapServers: k:9092}
        table: {name: orders, formatVersion: 4, partitionBy: ["week(ts)"]}
        commit: {interval: soon}
        """;
    assertThatThrownBy(() -> SinkConfigLoader.parse(bad))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).extracting(ConfigProblem::field)
            .containsExactly("source.groupId", "source.topics", "table.name", "table.formatVersion", "table.partitionBy[0]", "commit.interval",
                "deadLetter.topic"))
        .hasMessageContaining("table.name: must be namespace.table, got 'orders' (for example: analytics.orders)");
  }

  @Test
  void theDefaultOnErrorWithoutADeadLetterTopicIsRefusedSayingWhatToAdd() {
    // given the minimal config: onError left at dead-letter, no deadLetter section, or an empty one
    String minimal = VALID.replace("deadLetter: {topic: floe.dlq.orders}\n", "");
    String emptyTopic = VALID.replace("deadLetter: {topic: floe.dlq.orders}", "deadLetter: {topic: \"\"}");

    // then it is refused before it runs (it would stop on the first bad record), naming both ways out
    assertThat(minimal).doesNotContain("deadLetter");
    for (String config : new String[] {minimal, emptyTopic}) {
      assertThatThrownBy(() -> SinkConfigLoader.parse(config))
          .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).extracting(ConfigProblem::field)
              .containsExactly("deadLetter.topic"))
          .hasMessageContaining("with onError: dead-letter (the default): add a dead-letter topic")
          .hasMessageContaining("or set onError: fail")
          .hasMessageContaining("deadLetter: {topic: floe.dlq.orders}");
    }
    // and stopping on the first bad record, when asked for, is valid without a topic
    assertThat(SinkConfigLoader.parse(minimal + "onError: fail\n").onError()).isEqualTo(OnError.FAIL);
  }

  @Test
  void anUnknownFieldOrEnumValueIsNamed() {
    assertThatThrownBy(() -> SinkConfigLoader.parse(VALID.replace("groupId", "group")))
        .hasMessageContaining("source.group: unknown field 'group'");
    assertThatThrownBy(() -> SinkConfigLoader.parse(VALID.replace("requests: sum", "requests: average")))
        .hasMessageContaining("table.mergeRules.requests: 'average' is not one of last, last-non-null, sum, min, max, first");
    assertThatThrownBy(() -> SinkConfigLoader.parse(VALID.replace("groupId: floe-orders", "groupId: floe-orders\n  startFrom: beginning")))
        .hasMessageContaining("source.startFrom: 'beginning' is not one of group, earliest, latest");
  }

  @Test
  void startFromReadsAsWrittenAndIsUnsetByDefault() {
    assertThat(SinkConfigLoader.parse(VALID).source().startFrom()).isNull();
    SinkSpec spec = SinkConfigLoader.parse(VALID.replace("groupId: floe-orders", "groupId: floe-orders\n  startFrom: earliest"));
    assertThat(spec.source().startFrom()).isEqualTo(StartFrom.EARLIEST);
    assertThat(SinkConfigLoader.toYaml(spec)).contains("startFrom: \"earliest\"");
  }

  @Test
  void secretsAreResolvedLateAndNeverPrinted() {
    SinkSpec spec = SinkConfigLoader.parse(VALID);
    assertThat(spec.table().catalog().toString()).contains("s3.secret-access-key=<redacted>").doesNotContain("S3_SECRET");
    SecretResolver env = new SecretResolver(Map.of("S3_SECRET", "hunter2")::get);
    assertThat(env.resolveAll("p", spec.table().catalog().properties())).containsEntry("s3.secret-access-key", "hunter2");
    assertThatThrownBy(() -> new SecretResolver(name -> null).resolve("table.catalog.properties.x", "${env:MISSING}"))
        .hasMessageContaining("environment variable MISSING is not set");
  }
}
