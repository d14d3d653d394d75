package dev.floe.operator.scale;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The lag of a sink's consumer group: records per partition not yet committed by its workers; and
 * the newest snapshot commit the workers stamped on the group's offsets (null when none did).
 */
public record ConsumerLag(Map<TopicPartition, Long> partitions, Instant lastCommit, Long lastSnapshotId) {
  public ConsumerLag {
    partitions = Map.copyOf(partitions);
  }

  public ConsumerLag(Map<TopicPartition, Long> partitions) {
    this(partitions, null, null);
  }

  public long total() {
    return partitions.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Lag per "topic-partition", sorted, as status shows it. */
  public Map<String, Long> byName() {
    Map<String, Long> out = new TreeMap<>();
    partitions.forEach((tp, lag) -> out.put(tp.toString(), lag));
    return out;
  }
}
