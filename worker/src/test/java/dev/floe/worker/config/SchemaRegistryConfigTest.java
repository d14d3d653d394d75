package dev.floe.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code source.format} and {@code source.schemaRegistry}: what Avro needs, what a registry URL is, and secrets by reference only. */
class SchemaRegistryConfigTest {
  private static final String SINK = """
      table: {name: analytics.orders}
      deadLetter: {topic: floe.dlq.orders}
      source:
        bootstrapServers: "kafka:9092"
        topics: [pg.public.orders]
        groupId: floe-orders
      """;

  @Test
  void jsonIsTheDefaultAndAvroWithARegistryBinds() {
    assertThat(SinkConfigLoader.parse(SINK).source().formatOrDefault()).isEqualTo(SourceFormat.JSON);

    SinkSpec avro = SinkConfigLoader.parse(SINK + """
          format: avro
          schemaRegistry: {url: "https://apicurio:8443", username: floe, password: "${env:REGISTRY_PASSWORD}",
                           trustStore: /etc/floe/secrets/registry-tls/ca.pem}
        """);

    assertThat(avro.source().formatOrDefault()).isEqualTo(SourceFormat.AVRO);
    assertThat(avro.source().schemaRegistry().url()).isEqualTo("https://apicurio:8443");
    assertThat(LiteralSecrets.of(avro)).isEmpty();
  }

  @Test
  void avroWithoutARegistryAndAUrlThatIsNotHttpAreRefusedWithWhatToWrite() {
    assertThatThrownBy(() -> SinkConfigLoader.parse(SINK + "  format: avro\n")).isInstanceOfSatisfying(ConfigException.class, e ->
        assertThat(e.problems()).singleElement().satisfies(p -> {
          assertThat(p.field()).isEqualTo("source.schemaRegistry.url");
          assertThat(p.toString()).contains("is required with format: avro").contains("http://apicurio:8080");
        }));

    assertThatThrownBy(() -> SinkConfigLoader.parse(SINK + "  format: avro\n  schemaRegistry: {url: \"apicurio:8080\"}\n"))
        .hasMessageContaining("source.schemaRegistry.url: 'apicurio:8080' is not an http:// or https:// URL")
        .hasMessageContaining("Floe adds /apis/ccompat/v7");
    assertThatThrownBy(() -> SinkConfigLoader.parse(SINK + "  schemaRegistry: {url: \"http://apicurio:8080\"}\n"))
        .hasMessageContaining("source.schemaRegistry: is set but format is json");
    assertThatThrownBy(() -> SinkConfigLoader.parse(SINK + "  format: avro\n  schemaRegistry: {url: \"http://r:8080\", username: floe}\n"))
        .hasMessageContaining("source.schemaRegistry.password: is required with username");
  }

  @Test
  void literalRegistrySecretsAreFlaggedAndNeverShown() {
    SinkSpec spec = SinkConfigLoader.parse(SINK + """
          format: avro
          schemaRegistry: {url: "http://apicurio:8080", token: tok-literal-123}
        """);

    assertThat(LiteralSecrets.of(spec)).extracting(ConfigProblem::field).containsExactly("source.schemaRegistry.token");
    assertThat(LiteralSecrets.of(spec).toString()).doesNotContain("tok-literal-123");
    assertThat(spec.source().schemaRegistry().toString()).doesNotContain("tok-literal-123");
    assertThat(spec.source().toString()).doesNotContain("tok-literal-123");
  }
}
