package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The dead-letter topic of a sink. */
public record DeadLetterSpec(
    @JsonPropertyDescription("Topic that receives rejected records with the reason in headers.")
        String topic) {}
