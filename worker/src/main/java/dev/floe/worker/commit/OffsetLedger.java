package dev.floe.worker.commit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.kafka.common.TopicPartition;

/**
 * Keeps a sink's consumed offsets in the summaries of the snapshots it commits: the table, not
 * Kafka, is the truth of what was applied. Each Floe snapshot carries the full map (merged with its
 * parent's), so reading needs only the newest snapshot that has it.
 */
public final class OffsetLedger {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String OFFSETS_PREFIX = "floe.offsets.";
  static final String TRUNCATE_PREFIX = "floe.truncate-lsn.";
  /** Summary keys naming a sink's file of key changes waiting for their other half. */
  public static final String MOVES_PREFIX = "floe.moves.";

  private OffsetLedger() {}

  public static String offsetsKey(String sinkId) {
    return OFFSETS_PREFIX + sinkId;
  }

  public static String truncateKey(String sinkId) {
    return TRUNCATE_PREFIX + sinkId;
  }

  public static String movesKey(String sinkId) {
    return MOVES_PREFIX + sinkId;
  }

  /** The offsets the table's current snapshot holds for a sink, walking back past other writers' snapshots. */
  public static SinkOffsets read(Table table, String sinkId) {
    Snapshot s = table.currentSnapshot();
    while (s != null) {
      SinkOffsets found = fromSummary(s, sinkId);
      if (found != null) {
        return found;
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    return SinkOffsets.NONE;
  }

  static SinkOffsets fromSummary(Snapshot s, String sinkId) {
    String json = s.summary().get(offsetsKey(sinkId));
    if (json == null) {
      return null;
    }
    String truncate = s.summary().get(truncateKey(sinkId));
    return new SinkOffsets(decode(json), truncate == null ? null : Long.parseLong(truncate), s.summary().get(movesKey(sinkId)),
        s.snapshotId());
  }

  /**
   * Whether {@code now} holds the same offsets as {@code before} for every one of {@code partitions}
   * and the same truncate watermark and waiting key changes: commits in between came from workers
   * owning other partitions, and touched nothing this batch read.
   */
  public static boolean untouched(SinkOffsets before, SinkOffsets now, Collection<TopicPartition> partitions) {
    if (!Objects.equals(before.truncateLsn(), now.truncateLsn()) || !Objects.equals(before.movesFile(), now.movesFile())) {
      return false;
    }
    for (TopicPartition tp : partitions) {
      if (before.nextOffset(tp) != now.nextOffset(tp)) {
        return false;
      }
    }
    return true;
  }

  /** The parent's map with this batch's next offsets laid over it. */
  public static Map<TopicPartition, Long> merge(SinkOffsets parent, Map<TopicPartition, Long> batchNext) {
    Map<TopicPartition, Long> merged = new HashMap<>(parent.next());
    batchNext.forEach((tp, next) -> merged.merge(tp, next, Math::max));
    return merged;
  }

  /** {"topic": {"0": 12, "1": 40}}: compact, and readable in a snapshot listing. */
  public static String encode(Map<TopicPartition, Long> offsets) {
    ObjectNode root = JSON.createObjectNode();
    Map<String, Map<Integer, Long>> byTopic = new TreeMap<>();
    offsets.forEach((tp, o) -> byTopic.computeIfAbsent(tp.topic(), t -> new TreeMap<>()).put(tp.partition(), o));
    byTopic.forEach((topic, parts) -> {
      ObjectNode node = root.putObject(topic);
      parts.forEach((p, o) -> node.put(String.valueOf(p), o));
    });
    return root.toString();
  }

  static Map<TopicPartition, Long> decode(String json) {
    try {
      Map<TopicPartition, Long> out = new HashMap<>();
      JsonNode root = JSON.readTree(json);
      root.fields().forEachRemaining(topic -> topic.getValue().fields().forEachRemaining(p ->
          out.put(new TopicPartition(topic.getKey(), Integer.parseInt(p.getKey())), p.getValue().longValue())));
      return out;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("snapshot summary holds unreadable Floe offsets: " + json, e);
    }
  }
}
