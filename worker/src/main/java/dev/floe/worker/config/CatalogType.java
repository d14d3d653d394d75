package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The kinds of Iceberg catalog a sink can write through. */
public enum CatalogType {
  @JsonProperty("local")
  LOCAL,
  @JsonProperty("jdbc")
  JDBC,
  @JsonProperty("rest")
  REST,
  @JsonProperty("nessie")
  NESSIE,
  @JsonProperty("hadoop")
  HADOOP
}
