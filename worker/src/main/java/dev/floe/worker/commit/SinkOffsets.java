package dev.floe.worker.commit;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * What a table holds for one sink: the next offset to read of every partition it ever applied, the
 * truncate watermark (source LSN), the file of primary-key updates waiting for their other half
 * (null when none), the records the sink stopped at (already dead-lettered) and those an operator
 * skipped, and the snapshot they were read from.
 */
public record SinkOffsets(Map<TopicPartition, Long> next, Long truncateLsn, String movesFile, Long snapshotId,
    Map<TopicPartition, StopPoint> stops, List<StopPoint> skipped) {
  public static final SinkOffsets NONE = new SinkOffsets(Map.of(), null, null, null);

  public SinkOffsets {
    next = Map.copyOf(next);
    stops = Map.copyOf(stops);
    skipped = List.copyOf(skipped);
  }

  public SinkOffsets(Map<TopicPartition, Long> next, Long truncateLsn, String movesFile, Long snapshotId) {
    this(next, truncateLsn, movesFile, snapshotId, Map.of(), List.of());
  }

  /** Whether this record is the one the sink already stopped at (and dead-lettered). */
  public boolean stoppedAt(TopicPartition tp, long offset) {
    StopPoint stop = stops.get(tp);
    return stop != null && stop.offset() == offset;
  }

  /** The next offset to read of a partition, or -1 when the table holds none. */
  public long nextOffset(TopicPartition tp) {
    return next.getOrDefault(tp, -1L);
  }

  public boolean isEmpty() {
    return next.isEmpty();
  }

  @Override
  public String toString() {
    Map<String, Long> sorted = new TreeMap<>();
    next.forEach((tp, o) -> sorted.put(tp.toString(), o));
    return "SinkOffsets" + sorted + (truncateLsn == null ? "" : " truncateLsn=" + truncateLsn)
        + (stops.isEmpty() ? "" : " stopped at " + stops.values()) + " @" + snapshotId;
  }
}
