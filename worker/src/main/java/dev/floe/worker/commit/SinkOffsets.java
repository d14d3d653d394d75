package dev.floe.worker.commit;

import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * What a table holds for one sink: the next offset to read of every partition it ever applied, the
 * truncate watermark (source LSN), the file of primary-key updates waiting for their other half
 * (null when none), and the snapshot they were read from.
 */
public record SinkOffsets(Map<TopicPartition, Long> next, Long truncateLsn, String movesFile, Long snapshotId) {
  public static final SinkOffsets NONE = new SinkOffsets(Map.of(), null, null, null);

  public SinkOffsets {
    next = Map.copyOf(next);
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
    return "SinkOffsets" + sorted + (truncateLsn == null ? "" : " truncateLsn=" + truncateLsn) + " @" + snapshotId;
  }
}
