package dev.floe.worker.inspect;

/**
 * One source partition of a table: the offset the table holds for the sink (null when it holds
 * none), the topic's end (last stable) offset, and the records between them not yet applied.
 */
public record PartitionLag(String topic, int partition, Long tableOffset, Long endOffset, Long lag) {}
