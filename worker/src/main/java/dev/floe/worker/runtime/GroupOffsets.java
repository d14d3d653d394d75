package dev.floe.worker.runtime;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The consumer group's offsets, which only lag monitoring (the operator's scaling, KEDA, Burrow)
 * reads: the table holds the truth. After a table commit the group gets the table's next offset,
 * or the consumer's position when only records the consumer never returns lie between: the commit
 * markers of a transactional topic (Debezium under Kafka Connect with exactly-once source support)
 * and aborted records. Without that, "end offset − committed" never reaches 0 on such a topic and a
 * sink never scales to zero (kedacore/keda#5675). A partition moves past the table's offset only
 * when no record polled from it lies at or after that offset, so a record polled and not applied
 * (a paused table, a batch stopped part way) is never hidden from the lag.
 */
final class GroupOffsets {
  /** The offset after the last record polled from each partition since its assignment. */
  private final Map<TopicPartition, Long> polledEnd = new HashMap<>();
  /** What this worker last committed to the group, per partition it owns. */
  private final Map<TopicPartition, Long> committed = new HashMap<>();

  void polled(TopicPartition tp, long offset) {
    polledEnd.merge(tp, offset + 1, Math::max);
  }

  /** Partitions revoked or lost: what was polled or committed for them no longer speaks for this worker. */
  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(tp -> {
      polledEnd.remove(tp);
      committed.remove(tp);
    });
  }

  /**
   * The group offsets to commit after a table commit: per partition, the table's next offset, or
   * the consumer's position past it when nothing polled lies between.
   */
  Map<TopicPartition, Long> afterTableCommit(Map<TopicPartition, Long> tableNext, Map<TopicPartition, Long> positions) {
    Map<TopicPartition, Long> out = new HashMap<>();
    tableNext.forEach((tp, next) -> out.put(tp, Math.max(next, skippable(tp, next, positions))));
    return out;
  }

  /**
   * The group offsets to commit while idle: partitions whose position moved past what the group
   * holds over records never returned (a commit marker fetched after the last table commit).
   */
  Map<TopicPartition, Long> whileIdle(Map<TopicPartition, Long> positions) {
    Map<TopicPartition, Long> out = new HashMap<>();
    committed.forEach((tp, held) -> {
      long to = skippable(tp, held, positions);
      if (to > held) {
        out.put(tp, to);
      }
    });
    return out;
  }

  /** Records that the group now holds these offsets. */
  void committed(Map<TopicPartition, Long> offsets) {
    committed.putAll(offsets);
  }

  /** The position, if no record polled from the partition lies at or after {@code from}; else {@code from}. */
  private long skippable(TopicPartition tp, long from, Map<TopicPartition, Long> positions) {
    Long position = positions.get(tp);
    if (position == null || polledEnd.getOrDefault(tp, 0L) > from) {
      return from;
    }
    return Math.max(from, position);
  }
}
