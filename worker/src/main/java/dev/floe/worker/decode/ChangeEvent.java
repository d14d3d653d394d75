package dev.floe.worker.decode;

import java.util.Map;

/**
 * One decoded Debezium change: the operation, the primary key by column name, the row image (for
 * upserts; values in {@link #schema()} order, {@code Unchanged.VALUE} for TOAST placeholders), the
 * source LSN when the source has one, the record it came from, and for the insert half of a
 * primary-key update the row's previous key (Debezium's {@code __debezium.oldkey} header), for
 * its delete half the row's next key ({@code __debezium.newkey}). A batch holds every event it
 * decoded until it commits, and each object held is copied and marked again by the collector, so
 * the LSN is held unboxed ({@link #lsnOrNone}) and a key of one column, the common shape, as its
 * column's name and value ({@link #keyColumn}, {@link #keyValue}) rather than as a map per event.
 *
 * @param keyColumn the name of the key's only column, or null when the key is held in {@code keyColumns}
 * @param keyValue the value of the key's only column, or null when the key is held in {@code keyColumns}
 * @param keyColumns the key by column name when it is not held as one column (several columns, none, or a null value)
 */
public record ChangeEvent(
    Op op, String keyColumn, Object keyValue, Map<String, Object> keyColumns, EventSchema schema, Object[] values,
    long lsnOrNone, RawRecord record, Map<String, Object> previousKey, Map<String, Object> nextKey) implements Decoded {

  /** {@link #lsnOrNone} of an event whose source gives no LSN (PostgreSQL's are never negative). */
  public static final long NO_LSN = Long.MIN_VALUE;

  /** Takes a key of one column with a value given in {@code keyColumns} apart into {@code keyColumn} and {@code keyValue}. */
  public ChangeEvent {
    if (keyColumn == null && keyColumns != null && keyColumns.size() == 1) {
      Map.Entry<String, Object> only = keyColumns.entrySet().iterator().next();
      if (only.getKey() != null && only.getValue() != null) {
        keyColumn = only.getKey();
        keyValue = only.getValue();
        keyColumns = null;
      }
    }
  }

  public ChangeEvent(Op op, Map<String, Object> key, EventSchema schema, Object[] values, long lsnOrNone, RawRecord record,
      Map<String, Object> previousKey, Map<String, Object> nextKey) {
    this(op, null, null, key, schema, values, lsnOrNone, record, previousKey, nextKey);
  }

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

  /** The primary key by column name (a new map for a key held as one column: read it once per use). */
  public Map<String, Object> key() {
    return keyColumn == null ? keyColumns : Map.of(keyColumn, keyValue);
  }

  /** The source LSN, or null when the source gives none. */
  public Long lsn() {
    return lsnOrNone == NO_LSN ? null : lsnOrNone;
  }
}
