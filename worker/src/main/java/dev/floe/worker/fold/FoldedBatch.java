package dev.floe.worker.fold;

import dev.floe.worker.decode.RejectedRecord;
import java.util.List;
import java.util.Map;

/**
 * A batch folded per key: one {@link KeyFold} per touched key, whether the table is truncated
 * first, the truncate watermark to record, events superseded by a truncate, rejections, and the
 * halves of primary-key updates it holds (creates that name the old key, deletes that name the
 * new one), which the resolver pairs by LSN with halves in other batches.
 */
public record FoldedBatch(
    Map<RowKey, KeyFold> keys,
    boolean truncates,
    Long truncateLsn,
    int supersededByTruncate,
    List<RejectedRecord> rejected,
    List<KeyMove> arrivals,
    List<KeyMove> departures) {

  /** One half of a primary-key update at a source LSN: the row moved from {@code from} to {@code to}. */
  public record KeyMove(RowKey from, RowKey to, long lsn) {}
}
