package dev.floe.worker.engine;

import dev.floe.worker.decode.RejectedRecord;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** What applying one batch did. {@code snapshotId} is null when nothing needed committing. */
public record BatchResult(
    Long snapshotId,
    int records,
    int alreadyApplied,
    int tombstones,
    int events,
    int supersededByTruncate,
    boolean truncated,
    int rowsWritten,
    int keysDeleted,
    List<RejectedRecord> rejected,
    Map<TopicPartition, Long> nextOffsets,
    int commitAttempts) {

  static BatchResult alreadyApplied(int records) {
    return new BatchResult(null, records, records, 0, 0, 0, false, 0, 0, List.of(), Map.of(), 0);
  }
}
