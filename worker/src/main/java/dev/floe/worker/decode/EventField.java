package dev.floe.worker.decode;

import org.apache.iceberg.types.Type;

/**
 * One column of a change event's row: its name, Iceberg type, how to read its JSON value, and the
 * source column's default (decoded like a value; null when it has none). The default matters when
 * the column is new: PostgreSQL gives every existing row that value without emitting an event.
 */
public record EventField(String name, Type type, boolean optional, ValueCodec codec, Object defaultValue) {
  /** A column without a default. */
  public EventField(String name, Type type, boolean optional, ValueCodec codec) {
    this(name, type, optional, codec, null);
  }
}
