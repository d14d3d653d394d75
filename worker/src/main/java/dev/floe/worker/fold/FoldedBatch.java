package dev.floe.worker.fold;

import dev.floe.worker.decode.RejectedRecord;
import java.util.List;
import java.util.Map;

/**
 * A batch folded per key: one {@link KeyFold} per touched key, whether the table is truncated
 * first, the truncate watermark to record, events superseded by a truncate, and rejections.
 */
public record FoldedBatch(
    Map<RowKey, KeyFold> keys,
    boolean truncates,
    Long truncateLsn,
    int supersededByTruncate,
    List<RejectedRecord> rejected) {}
