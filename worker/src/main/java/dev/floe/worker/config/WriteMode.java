package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How upserts and deletes of stored rows are written into the table. */
public enum WriteMode {
  /** Every touched key gets an equality delete; readers match them against data files. */
  @JsonProperty("equality-deletes")
  EQUALITY_DELETES,
  /**
   * Replaced and deleted rows are found through a primary-key index and deleted by position
   * (position-delete files in format v2, deletion vectors in v3): reads pay nothing extra.
   */
  @JsonProperty("position-deletes")
  POSITION_DELETES
}
