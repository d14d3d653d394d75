package dev.floe.worker.testing;

import dev.floe.worker.quickstart.EmbeddedSchemaRegistry;

import java.io.IOException;

/**
 * The schema registry the Avro tests talk to: a real one named by {@code FLOE_SCHEMA_REGISTRY_URL}
 * (an Apicurio Registry's base URL, e.g. {@code http://127.0.0.1:8080}), else the
 * {@link EmbeddedSchemaRegistry} stand-in. No real Apicurio server is built here: Maven Central as
 * this machine reaches it serves {@code apicurio-registry-app} 3.3.3 and its parent POM but not the
 * jars of the modules it needs (schema-util-provider, -common, -avro, -json, -protobuf,
 * contracts-rules, config-definitions, config-index, utils-import-export,
 * protobuf-schema-utilities), 3.3.2's and 3.0.9's parent POMs are not served, and 2.6.13.Final lacks
 * schema-util-provider and the common app components.
 */
public final class SchemaRegistryServer implements AutoCloseable {
  private final String baseUrl;
  private final EmbeddedSchemaRegistry inProcess;

  private SchemaRegistryServer(String baseUrl, EmbeddedSchemaRegistry inProcess) {
    this.baseUrl = baseUrl;
    this.inProcess = inProcess;
  }

  /** The registry named by {@code FLOE_SCHEMA_REGISTRY_URL}, else a new in-process stand-in. */
  public static SchemaRegistryServer start() throws IOException {
    String url = System.getenv("FLOE_SCHEMA_REGISTRY_URL");
    if (url != null && !url.isBlank()) {
      return new SchemaRegistryServer(url.replaceAll("/+$", ""), null);
    }
    EmbeddedSchemaRegistry registry = EmbeddedSchemaRegistry.start();
    return new SchemaRegistryServer(registry.baseUrl(), registry);
  }

  /** True for a real registry server, false for the in-process stand-in. */
  public boolean real() {
    return inProcess == null;
  }

  /** The server's root, {@code http://host:port}. */
  public String baseUrl() {
    return baseUrl;
  }

  /** The Confluent-compatible API (what a Confluent client or a ccompat decoder uses). */
  public String ccompatUrl() {
    return baseUrl + "/apis/ccompat/v7";
  }

  /** Apicurio's native API v3 ({@code /ids/globalIds/{id}}, {@code /ids/contentIds/{id}}). */
  public String v3Url() {
    return baseUrl + "/apis/registry/v3";
  }

  /** Apicurio's native API v2, which the 2.6 serdes and converter speak (Registry 3 serves it too). */
  public String v2Url() {
    return baseUrl + "/apis/registry/v2";
  }

  /** Requests the stand-in could not answer (empty for a real registry). */
  public java.util.List<String> unserved() {
    return inProcess == null ? java.util.List.of() : inProcess.unserved();
  }

  @Override
  public void close() {
    if (inProcess != null) {
      inProcess.close();
    }
  }
}
