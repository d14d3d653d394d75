package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How the change records' keys and values are written. */
public enum SourceFormat {
  /** Kafka Connect's JsonConverter, with or without schemas (the default). */
  @JsonProperty("json")
  JSON,
  /** Avro with a schema registry: a schema id in the record (magic byte 0 + 4 bytes) or in Apicurio's headers. */
  @JsonProperty("avro")
  AVRO;

  /** The value as written in a sink config. */
  public String configName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
