package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** The dead-letter topic of a sink. */
public record DeadLetterSpec(
    @JsonPropertyDescription("Topic that receives rejected records with the reason in headers.")
        @Required @Pattern(DeadLetterSpec.TOPIC_PATTERN) String topic) {

  /** What Kafka allows in a topic name. */
  public static final String TOPIC_PATTERN = "^[a-zA-Z0-9._-]{1,249}$";
}
