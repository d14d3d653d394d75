package dev.floe.worker.decode;

import java.util.Map;

/**
 * One decoded Debezium change: the operation, the primary key by column name, the row image (for
 * upserts; values in {@link #schema()} order, {@code Unchanged.VALUE} for TOAST placeholders), the
 * source LSN when the source has one, and the record it came from.
 */
public record ChangeEvent(
    Op op, Map<String, Object> key, EventSchema schema, Object[] values, Long lsn, RawRecord record) {}
