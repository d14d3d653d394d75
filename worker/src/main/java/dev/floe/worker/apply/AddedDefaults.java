package dev.floe.worker.apply;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.data.GenericDataUtil;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * What Floe records, in table properties, about columns the source added with a default
 * ({@code ALTER TABLE … ADD COLUMN … DEFAULT x}), by field id:
 * <ul>
 *   <li>{@code floe.added-default.<id>}: the default (Iceberg's single-value JSON). Rows that
 *       existed before the column hold it at the source.
 *   <li>{@code floe.added-default.<id>.before-lsn}: the smallest LSN seen carrying the column. An
 *       event that lacks the column and is older than that predates it, so its row holds the
 *       default too; a younger one comes after the source dropped the column and gets null.
 *   <li>{@code floe.fill.<id>}: a pending fill (format v2, which has no initial defaults): data
 *       files whose data sequence number is at most this value were written before the column and
 *       read null for it until {@link DefaultFiller} rewrites them.
 * </ul>
 * Written in the same commit as the column, so a worker that dies before the fill finishes it.
 */
public final class AddedDefaults {
  static final String DEFAULT_PREFIX = "floe.added-default.";
  static final String BEFORE_LSN_SUFFIX = ".before-lsn";
  static final String FILL_PREFIX = "floe.fill.";

  private AddedDefaults() {}

  /** A column added with a default: its field id, type, generic value and LSN bound (null when the source has none). */
  public record Added(int fieldId, Type type, Object value, Long beforeLsn) {}

  public static String defaultKey(int fieldId) {
    return DEFAULT_PREFIX + fieldId;
  }

  public static String beforeLsnKey(int fieldId) {
    return DEFAULT_PREFIX + fieldId + BEFORE_LSN_SUFFIX;
  }

  public static String fillKey(int fieldId) {
    return FILL_PREFIX + fieldId;
  }

  /** The columns of {@code schema} recorded as added with a default, by field id. */
  public static Map<Integer, Added> read(Map<String, String> properties, Schema schema) {
    Map<Integer, Added> out = new TreeMap<>();
    properties.forEach((k, v) -> {
      if (!k.startsWith(DEFAULT_PREFIX) || k.endsWith(BEFORE_LSN_SUFFIX)) {
        return;
      }
      int id = Integer.parseInt(k.substring(DEFAULT_PREFIX.length()));
      Types.NestedField f = schema.findField(id);
      if (f == null) {
        return;
      }
      String lsn = properties.get(beforeLsnKey(id));
      out.put(id, new Added(id, f.type(), fromJson(f.type(), v), lsn == null ? null : Long.parseLong(lsn)));
    });
    return out;
  }

  /** Pending fills: field id → the data sequence number at or below which files lack the column. */
  public static Map<Integer, Long> pendingFills(Map<String, String> properties) {
    Map<Integer, Long> out = new TreeMap<>();
    properties.forEach((k, v) -> {
      if (k.startsWith(FILL_PREFIX)) {
        out.put(Integer.parseInt(k.substring(FILL_PREFIX.length())), Long.parseLong(v));
      }
    });
    return out;
  }

  /** The properties that record a column added with a default. */
  public static Map<String, String> properties(int fieldId, Type type, Object value, Long beforeLsn) {
    Map<String, String> out = new HashMap<>();
    out.put(defaultKey(fieldId), toJson(type, value));
    if (beforeLsn != null) {
      out.put(beforeLsnKey(fieldId), String.valueOf(beforeLsn));
    }
    return out;
  }

  /** The default as an Iceberg literal of the column's type, or null for a type literals cannot hold (lists). */
  public static Literal<?> literal(Type type, Object value) {
    if (!type.isPrimitiveType()) {
      return null;
    }
    return Expressions.lit(toInternal(type, value)).to(type);
  }

  static String toJson(Type type, Object value) {
    return SingleValueParser.toJson(type, toInternal(type, value));
  }

  static Object fromJson(Type type, String json) {
    return GenericDataUtil.internalToGeneric(type, SingleValueParser.fromJson(type, json));
  }

  /** Iceberg's internal representation (days, micros, ...) of a generic value, converted by Iceberg itself. */
  private static Object toInternal(Type type, Object value) {
    Types.StructType struct = Types.StructType.of(Types.NestedField.optional(1, "v", type));
    GenericRecord r = GenericRecord.create(struct);
    r.set(0, value);
    return new InternalRecordWrapper(struct).wrap(r).get(0, Object.class);
  }
}
