package dev.floe.worker.commit;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.kafka.common.TopicPartition;

/**
 * Moves a sink's offsets past one record it cannot apply, in an Iceberg snapshot of no files that
 * also records the skip (summary {@code floe.skipped.<sink>}), so the skip is visible in
 * {@code floe offsets} and the table's history. Only the record the partition's offsets point at
 * can be skipped: skipping further would silently drop the records in between.
 */
public final class RecordSkipper {
  private RecordSkipper() {}

  /** What a skip committed. */
  public record Skipped(long snapshotId, StopPoint skipped) {}

  /**
   * @param reason why, for the record; null takes the reason the sink stopped with
   * @throws SkipRefusedException when the partition's next offset is not {@code offset}
   */
  public static Skipped skip(Table table, String sinkId, TopicPartition tp, long offset, String reason) {
    table.refresh();
    SinkOffsets held = OffsetLedger.read(table, sinkId);
    long next = held.nextOffset(tp);
    if (next != offset) {
      throw new SkipRefusedException("table " + table.name() + " holds next offset " + (next < 0 ? "none" : String.valueOf(next))
          + " for " + tp + " (sink " + sinkId + "): only the record the sink stands at can be skipped"
          + (held.stops().containsKey(tp) ? "; it stopped at " + held.stops().get(tp) : ""));
    }
    StopPoint stop = held.stops().get(tp);
    String why = reason != null ? reason : stop != null && stop.offset() == offset ? "skipped by the operator: " + stop.reason()
        : "skipped by the operator";
    StopPoint skipped = new StopPoint(tp, offset, why);
    Long base = table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
    long snapshotId = BatchCommitter.commit(table, sinkId, base, held,
        BatchCommitter.Commit.offsetsOnly(held, Map.of(tp, offset + 1), List.of(), List.of(skipped)));
    return new Skipped(snapshotId, skipped);
  }
}
