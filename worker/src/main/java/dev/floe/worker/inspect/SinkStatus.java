package dev.floe.worker.inspect;

import java.util.List;

/**
 * A sink at a glance: its tables and the lag over all of them. {@code kafkaError} says why the end
 * offsets are unknown (the lag is then null: unknown lag is never zero lag).
 */
public record SinkStatus(String sink, Long lag, String kafkaError, List<TableStatus> tables) {}
