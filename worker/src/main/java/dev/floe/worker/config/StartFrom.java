package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Where a sink starts reading a partition for which its table holds no offset (a new or re-created table). */
public enum StartFrom {
  /** The consumer group's committed offset (the start of the log where the group has none). */
  @JsonProperty("group")
  GROUP,
  /** The start of the log: every record Kafka still holds. */
  @JsonProperty("earliest")
  EARLIEST,
  /** The end of the log: only records written from now on. */
  @JsonProperty("latest")
  LATEST;

  /** The value as written in a sink config. */
  public String configName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
