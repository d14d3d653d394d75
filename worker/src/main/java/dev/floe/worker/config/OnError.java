package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What the sink does with a record it cannot decode or apply. */
public enum OnError {
  /** Send it to the dead-letter topic with the reason, and go on. */
  @JsonProperty("dead-letter")
  DEAD_LETTER,
  /** Stop the sink. */
  @JsonProperty("fail")
  FAIL
}
