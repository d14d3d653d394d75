package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Where the table's catalog lives. Secrets are referenced ({@code ${env:NAME}}, {@code
 * ${file:/path}}) and resolved only when the catalog is built; {@link #toString()} redacts them.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@ValidationRule(value = "!has(self.type) || !(self.type in ['jdbc', 'rest', 'nessie']) || (has(self.uri) && size(self.uri) > 0)",
    message = "uri is required for a jdbc, rest or nessie catalog")
@ValidationRule(value = "(has(self.type) && !(self.type in ['local', 'hadoop', 'jdbc'])) || (has(self.warehouse) && size(self.warehouse) > 0)",
    message = "warehouse is required for a local (the default), hadoop or jdbc catalog")
public record CatalogSpec(
    @JsonPropertyDescription(
            "Catalog type: local (SQLite file in the warehouse, the default), jdbc, rest, nessie,"
                + " hadoop.")
        CatalogType type,
    @JsonPropertyDescription("Catalog URI: a JDBC URL, or the REST or Nessie server URL.") String uri,
    @JsonPropertyDescription("Warehouse location: a local path, file:/..., or s3://bucket/prefix.")
        String warehouse,
    @JsonPropertyDescription("Nessie branch or tag to commit to.") String ref,
    @JsonPropertyDescription("Name of a Secret whose keys are extra catalog properties.")
        String secretRef,
    @JsonPropertyDescription(
            "Extra catalog and FileIO properties (s3.endpoint, ...); values may be ${env:NAME} or"
                + " ${file:/path}.")
        Map<String, String> properties) {

  private static final Pattern SECRET_KEY =
      Pattern.compile("(?i).*(secret|password|token|credential|access-key|session-key).*");
  /** Secret-sounding keys whose values are switches or class names, not secrets. */
  private static final Pattern NOT_A_SECRET = Pattern.compile("(?i).*([.-]enabled|provider|[.-]type|[.-]impl|[.-]class|[.-]uri|[.-]endpoint)$");

  public CatalogSpec {
    type = type == null ? CatalogType.LOCAL : type;
    properties = properties == null ? Map.of() : Map.copyOf(properties);
  }

  /** The embedded default: a SQLite catalog and local files under {@code warehouse}. */
  public static CatalogSpec local(String warehouse) {
    return new CatalogSpec(CatalogType.LOCAL, null, warehouse, null, null, Map.of());
  }

  /**
   * Whether a property of this name holds a secret (s3.secret-access-key, ssl.key.password,
   * token): masked in {@link #toString()}, and to be given by reference, never literally.
   */
  public static boolean isSecretKey(String key) {
    return key != null && SECRET_KEY.matcher(key).matches() && !NOT_A_SECRET.matcher(key).matches();
  }

  @Override
  public String toString() {
    Map<String, String> shown = new TreeMap<>();
    properties.forEach((k, v) -> shown.put(k, isSecretKey(k) ? "<redacted>" : v));
    return "CatalogSpec[type=%s, uri=%s, warehouse=%s, ref=%s, secretRef=%s, properties=%s]"
        .formatted(type, uri, warehouse, ref, secretRef, shown);
  }
}
