package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * The schema registry that Avro records' writer schemas are fetched from (Apicurio Registry 3, or
 * any registry serving the Confluent API). Credentials are references ({@code ${env:NAME}},
 * {@code ${file:/path}}, or the keys of the Secret named by {@code secretRef}), resolved only when
 * the client is built; {@link #toString()} never shows them.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record SchemaRegistrySpec(
    @JsonPropertyDescription("The registry's base URL, http(s)://host:port (Apicurio: without /apis/...).")
        @Required @Pattern("^[hH][tT][tT][pP][sS]?://.+") String url,
    @JsonPropertyDescription("User for HTTP basic auth; may be ${env:NAME} or ${file:/path}.") String username,
    @JsonPropertyDescription("Password for HTTP basic auth, as ${env:NAME} or ${file:/path} (never the password itself).")
        String password,
    @JsonPropertyDescription("Bearer token, as ${env:NAME} or ${file:/path} (never the token itself).") String token,
    @JsonPropertyDescription("Name of a Secret with the keys username and password, or token; mounted like kafkaSecretRef.")
        String secretRef,
    @JsonPropertyDescription("Path of a truststore (PKCS12, JKS, or PEM certificates) to trust the registry's TLS certificate by.")
        String trustStore,
    @JsonPropertyDescription("The truststore's password, as ${env:NAME} or ${file:/path}; PEM files need none.")
        String trustStorePassword) {

  /** A registry without auth or TLS settings. */
  public static SchemaRegistrySpec at(String url) {
    return new SchemaRegistrySpec(url, null, null, null, null, null, null);
  }

  @Override
  public String toString() {
    return "SchemaRegistrySpec[url=%s, username=%s, password=%s, token=%s, secretRef=%s, trustStore=%s, trustStorePassword=%s]"
        .formatted(Redactor.redact(url), username, shown(password), shown(token), secretRef, trustStore, shown(trustStorePassword));
  }

  /** A reference stays readable (it names where the secret is); anything else is masked. */
  private static String shown(String secret) {
    return secret == null || SecretResolver.containsReference(secret) ? secret : Redactor.MASK;
  }
}
