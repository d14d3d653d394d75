package dev.floe.worker.inspect;

import java.util.List;

/**
 * One table of a sink: the snapshot that holds the sink's offsets, when it was committed and how
 * long ago (freshness; the time is ISO-8601, UTC), the lag of each partition it is fed from, and what it costs readers.
 */
public record TableStatus(String table, Long snapshotId, String lastCommit, Long secondsSinceCommit,
    List<PartitionLag> partitions, Long lag, TableFacts facts) {}
