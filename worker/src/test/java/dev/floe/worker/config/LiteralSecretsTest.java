package dev.floe.worker.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A secret written literally into a sink config is found by field, and its value is never repeated. */
class LiteralSecretsTest {
  private static SinkSpec spec(String sourceProperties, String catalog) {
    return SinkConfigLoader.parse("""
        source: {bootstrapServers: "kafka:9092", topics: [t], groupId: g, properties: %s}
        table: {name: a.b, catalog: %s}
        deadLetter: {topic: dlq}
        """.formatted(sourceProperties, catalog));
  }

  @Test
  void literalSecretsUnderSecretKeysInJaasAndInTheUriAreFound() {
    SinkSpec spec = spec("{sasl.jaas.config: 'PlainLoginModule required username=\"u\" password=\"pw-literal\";', ssl.key.password: kp-literal}",
        "{type: jdbc, warehouse: /w, uri: 'jdbc:postgresql://db/cat?user=u&password=uri-literal',"
            + " properties: {s3.secret-access-key: sk-literal, s3.access-key-id: '${env:S3_ID}', token-refresh-enabled: 'true'}}");

    assertThat(LiteralSecrets.of(spec)).extracting(ConfigProblem::field).containsExactlyInAnyOrder(
        "source.properties.sasl.jaas.config", "source.properties.ssl.key.password",
        "table.catalog.uri", "table.catalog.properties.s3.secret-access-key");
    assertThat(LiteralSecrets.of(spec).toString()).doesNotContain("literal\"", "pw-literal", "kp-literal", "uri-literal", "sk-literal")
        .contains("${env:NAME}");
  }

  @Test
  void referencesAreNotLiteralSecrets() {
    SinkSpec spec = spec("{sasl.jaas.config: 'PlainLoginModule required username=\"u\" password=\"${env:KAFKA_PW}\";'}",
        "{type: rest, uri: 'http://floe:${env:REST_PW}@rest:8181/', properties: {s3.secret-access-key: '${file:/s/key}'}}");
    assertThat(LiteralSecrets.of(spec)).isEmpty();
  }
}
