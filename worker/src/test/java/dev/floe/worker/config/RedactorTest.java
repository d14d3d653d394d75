package dev.floe.worker.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Credentials are masked in every shape they take in URIs and messages; references and prose stay. */
class RedactorTest {
  @Test
  void aUriPasswordIsMaskedAndTheUserAndHostStay() {
    assertThat(Redactor.redact("GET http://floeuser:s3cr3t@rest:8181/v1/config failed"))
        .isEqualTo("GET http://floeuser:****@rest:8181/v1/config failed");
    assertThat(Redactor.redact("jdbc:mysql://app:pw12@db/cat")).isEqualTo("jdbc:mysql://app:****@db/cat");
    assertThat(Redactor.redact("http://rest:8181/v1 and user@example.com")).isEqualTo("http://rest:8181/v1 and user@example.com");
  }

  @Test
  void secretNamedParametersAreMaskedInJdbcQueryJaasAndKafkaShapes() {
    assertThat(Redactor.redact("Failed to connect: jdbc:postgresql://db:5432/cat?user=floe&password=hunter2&ssl=true"))
        .isEqualTo("Failed to connect: jdbc:postgresql://db:5432/cat?user=floe&password=****&ssl=true");
    assertThat(Redactor.redact("jdbc:sqlserver://db;user=floe;password=hunter2;encrypt=true"))
        .isEqualTo("jdbc:sqlserver://db;user=floe;password=****;encrypt=true");
    assertThat(Redactor.redact("PlainLoginModule required username=\"floe\" password=\"hunter2\";"))
        .isEqualTo("PlainLoginModule required username=\"floe\" password=\"****\";");
    assertThat(Redactor.redact("https://s3/b/o?X-Amz-Credential=AKIA/x&X-Amz-Signature=abc123&token=t0k&key=k3y"))
        .isEqualTo("https://s3/b/o?X-Amz-Credential=****&X-Amz-Signature=****&token=****&key=****");
    assertThat(Redactor.redact("ssl.truststore.password = changeit")).isEqualTo("ssl.truststore.password = ****");
    assertThat(Redactor.redact("Authorization: Bearer eyJhbGciOi.J9x1")).isEqualTo("Authorization: Bearer ****");
  }

  @Test
  void referencesAndOrdinaryTextAreLeftAlone() {
    String text = "http://u:${env:PW}@h/ password=${file:/s/pw} primaryKey=[id] key=[id] basic authentication failed, token expired";
    assertThat(Redactor.redact(text)).isEqualTo(text);
    assertThat(Redactor.redact(null)).isNull();
  }

  @Test
  void aResolvedSecretIsMaskedWhereverItAppearsAlsoPercentEncoded() {
    KnownSecrets.register("zq-7f3a9c@x");
    assertThat(Redactor.redact("cannot reach host zq-7f3a9c@x (zq-7f3a9c%40x)")).isEqualTo("cannot reach host **** (****)");
    KnownSecrets.register("ab"); // too short to mask by value: it would blank out ordinary words
    assertThat(Redactor.redact("tab")).isEqualTo("tab");
  }

  @Test
  void aSecretsPlainSettingsAreNotMaskedEverywhereButItsSecretsAre() {
    KnownSecrets.registerProperty("security.protocol", "SASL_SSL");
    KnownSecrets.registerProperty("s3.secret-access-key", "wJalrXUtnFEMI");
    assertThat(Redactor.redact("SASL_SSL handshake failed with wJalrXUtnFEMI")).isEqualTo("SASL_SSL handshake failed with ****");
  }

  @Test
  void aLiteralCredentialIsToldFromAReference() {
    assertThat(Redactor.hasLiteralCredential("http://u:pw@h/")).isTrue();
    assertThat(Redactor.hasLiteralCredential("jdbc:postgresql://h/db?password=pw")).isTrue();
    assertThat(Redactor.hasLiteralCredential("required username=\"u\" password=\"pw\";")).isTrue();
    assertThat(Redactor.hasLiteralCredential("http://u:${env:PW}@h/")).isFalse();
    assertThat(Redactor.hasLiteralCredential("required username=\"u\" password=\"${file:/s/pw}\";")).isFalse();
    assertThat(Redactor.hasLiteralCredential("http://rest:8181/")).isFalse();
  }
}
