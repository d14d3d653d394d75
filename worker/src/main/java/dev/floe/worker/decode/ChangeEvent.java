package dev.floe.worker.decode;

import java.util.Map;

/**
 * One decoded Debezium change: the operation, the primary key by column name, the row image (for
 * upserts; values in {@link #schema()} order, {@code Unchanged.VALUE} for TOAST placeholders), the
 * source LSN when the source has one, the record it came from, and for the insert half of a
 * primary-key update the row's previous key (Debezium's {@code __debezium.oldkey} header), for
 * its delete half the row's next key ({@code __debezium.newkey}). The LSN is held unboxed
 * ({@link #lsnOrNone}): a batch holds every event it decoded until it commits, and each object
 * held is copied and marked again by the collector.
 */
public record ChangeEvent(
    Op op, Map<String, Object> key, EventSchema schema, Object[] values, long lsnOrNone, RawRecord record,
    Map<String, Object> previousKey, Map<String, Object> nextKey) implements Decoded {

  /** {@link #lsnOrNone} of an event whose source gives no LSN (PostgreSQL's are never negative). */
  public static final long NO_LSN = Long.MIN_VALUE;

  public ChangeEvent(Op op, Map<String, Object> key, EventSchema schema, Object[] values, Long lsn, RawRecord record,
      Map<String, Object> previousKey, Map<String, Object> nextKey) {
    this(op, key, schema, values, lsn == null ? NO_LSN : lsn, record, previousKey, nextKey);
  }

  public ChangeEvent(Op op, Map<String, Object> key, EventSchema schema, Object[] values, Long lsn, RawRecord record) {
    this(op, key, schema, values, lsn, record, null, null);
  }

  public ChangeEvent(Op op, Map<String, Object> key, EventSchema schema, Object[] values, Long lsn, RawRecord record,
      Map<String, Object> previousKey) {
    this(op, key, schema, values, lsn, record, previousKey, null);
  }

  /** The source LSN, or null when the source gives none. */
  public Long lsn() {
    return lsnOrNone == NO_LSN ? null : lsnOrNone;
  }
}
