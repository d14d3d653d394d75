package dev.floe.worker.runtime;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The backlog waiting when a worker got its partitions: the log ends at assignment. A worker woken
 * from zero exists to apply that backlog, so its batch closes as soon as it has read it all instead
 * of waiting out the commit interval; after that the commit policy alone decides. Pure: the runner
 * feeds it ends and positions.
 */
final class WakeBacklog {
  private final Map<TopicPartition, Long> ends = new HashMap<>();

  /** Partitions just assigned, with their log ends (last stable offsets under read_committed). */
  void assigned(Map<TopicPartition, Long> logEnds) {
    ends.putAll(logEnds);
  }

  /** Partitions gone (revoked, lost, paused by a stopped table): their backlog no longer holds a batch open. */
  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(ends::remove);
  }

  /**
   * Whether these fetch positions have read everything that was waiting; true once, then the
   * backlog is cleared. A partition whose position is unknown has not been read yet.
   */
  boolean drainedBy(Map<TopicPartition, Long> positions) {
    if (ends.isEmpty()) {
      return false;
    }
    for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
      Long position = positions.get(e.getKey());
      if (position == null || position < e.getValue()) {
        return false;
      }
    }
    ends.clear();
    return true;
  }
}
