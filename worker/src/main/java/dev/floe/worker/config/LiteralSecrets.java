package dev.floe.worker.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds secrets written into a sink config literally (a {@code s3.secret-access-key} value, a JAAS
 * {@code password="..."}, a password in the catalog URI) instead of by reference. Such a config
 * still works, but the secret sits in plain text wherever the config goes (a file, a ConfigMap,
 * Git). The problems name the field only, never the value.
 */
public final class LiteralSecrets {
  private static final String HINT = "${env:NAME} (an environment variable set from a Secret), ${file:/path},"
      + " or a key of the Secret named by table.catalog.secretRef / source.kafkaSecretRef";

  private LiteralSecrets() {}

  public static List<ConfigProblem> of(SinkSpec spec) {
    List<ConfigProblem> out = new ArrayList<>();
    if (spec.source() != null) {
      properties(out, "source.properties", spec.source().properties());
      SchemaRegistrySpec r = spec.source().schemaRegistry();
      if (r != null) {
        literal(out, "source.schemaRegistry.password", r.password(), "${env:REGISTRY_PASSWORD}");
        literal(out, "source.schemaRegistry.token", r.token(), "${env:REGISTRY_TOKEN}");
        literal(out, "source.schemaRegistry.trustStorePassword", r.trustStorePassword(), "${env:REGISTRY_TRUSTSTORE_PASSWORD}");
        if (Redactor.hasLiteralCredential(r.url())) {
          out.add(new ConfigProblem("source.schemaRegistry.url", "holds a literal credential; give it as username and password references",
              "url: http://apicurio:8080, username: floe, password: ${env:REGISTRY_PASSWORD}"));
        }
      }
    }
    if (spec.table() != null && spec.table().catalog() != null) {
      CatalogSpec c = spec.table().catalog();
      if (Redactor.hasLiteralCredential(c.uri())) {
        out.add(new ConfigProblem("table.catalog.uri", "holds a literal password; write the password part as a reference",
            "jdbc:postgresql://db:5432/catalog?user=floe&password=${env:CATALOG_PASSWORD}"));
      }
      properties(out, "table.catalog.properties", c.properties());
    }
    return out;
  }

  /** A secret field holding the secret itself rather than a reference to it. */
  private static void literal(List<ConfigProblem> out, String field, String value, String example) {
    if (value != null && !value.isBlank() && !SecretResolver.containsReference(value)) {
      out.add(new ConfigProblem(field, "holds a literal secret, readable by anyone who can read this config; reference it instead",
          example + ", or the key of the Secret named by source.schemaRegistry.secretRef"));
    }
  }

  private static void properties(List<ConfigProblem> out, String field, Map<String, String> properties) {
    new TreeMap<>(properties).forEach((key, value) -> {
      boolean literalValue = CatalogSpec.isSecretKey(key) && value != null && !value.isBlank()
          && !SecretResolver.containsReference(value);
      if (literalValue || Redactor.hasLiteralCredential(value)) {
        out.add(new ConfigProblem(field + "." + key, "holds a literal secret, readable by anyone who can read this config;"
            + " reference it instead", HINT));
      }
    });
  }
}
