package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How upserts and deletes of stored rows are written into the table. */
public enum WriteMode {
  /** Every touched key gets an equality delete; readers match them against data files. */
  @JsonProperty("equality-deletes")
  EQUALITY_DELETES
}
