package dev.floe.worker.commit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
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
  static final String STOPPED_PREFIX = "floe.stopped.";
  static final String SKIPPED_PREFIX = "floe.skipped.";
  /** Skips remembered in the summary: enough for an operator's audit without growing every snapshot. */
  static final int SKIPS_KEPT = 50;

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

  public static String stoppedKey(String sinkId) {
    return STOPPED_PREFIX + sinkId;
  }

  public static String skippedKey(String sinkId) {
    return SKIPPED_PREFIX + sinkId;
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
    Map<TopicPartition, StopPoint> stops = new HashMap<>();
    decodePoints(s.summary().get(stoppedKey(sinkId))).forEach(p -> stops.put(p.partition(), p));
    return new SinkOffsets(decode(json), truncate == null ? null : Long.parseLong(truncate), s.summary().get(movesKey(sinkId)),
        s.snapshotId(), stops, decodePoints(s.summary().get(skippedKey(sinkId))));
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

  /**
   * The stop points a commit records: the parent's and the batch's, less those whose partition
   * the merged offsets have moved past (the record was applied or skipped).
   */
  public static List<StopPoint> mergeStops(SinkOffsets parent, Collection<StopPoint> batch, Map<TopicPartition, Long> mergedNext) {
    Map<TopicPartition, StopPoint> out = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
    parent.stops().values().forEach(p -> out.put(p.partition(), p));
    batch.forEach(p -> out.put(p.partition(), p));
    out.values().removeIf(p -> mergedNext.getOrDefault(p.partition(), -1L) > p.offset());
    return List.copyOf(out.values());
  }

  /** The parent's skips and the batch's, the newest {@value #SKIPS_KEPT}. */
  public static List<StopPoint> mergeSkips(SinkOffsets parent, Collection<StopPoint> batch) {
    List<StopPoint> all = new ArrayList<>(parent.skipped());
    all.addAll(batch);
    return List.copyOf(all.subList(Math.max(0, all.size() - SKIPS_KEPT), all.size()));
  }

  /** [{"topic": "t", "partition": 0, "offset": 12, "reason": "..."}] */
  public static String encodePoints(Collection<StopPoint> points) {
    ArrayNode root = JSON.createArrayNode();
    for (StopPoint p : points) {
      root.addObject().put("topic", p.partition().topic()).put("partition", p.partition().partition())
          .put("offset", p.offset()).put("reason", p.reason());
    }
    return root.toString();
  }

  static List<StopPoint> decodePoints(String json) {
    if (json == null) {
      return List.of();
    }
    try {
      List<StopPoint> out = new ArrayList<>();
      for (JsonNode n : JSON.readTree(json)) {
        out.add(new StopPoint(new TopicPartition(n.get("topic").asText(), n.get("partition").asInt()), n.get("offset").asLong(),
            n.path("reason").asText("")));
      }
      return out;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("snapshot summary holds unreadable Floe stop points: " + json, e);
    }
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
