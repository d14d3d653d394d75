package dev.floe.worker.apply;

import dev.floe.worker.decode.Utf8Slice;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The stored values a merge rule combines with ({@code sum}, {@code min}, {@code max}, {@code
 * first}, {@code last-non-null}), held beside the primary-key index so an upsert needs no read of
 * the table. Values are kept per data file by row position (a row's place never changes, so a key
 * that moves to a new row finds its value there, and a file that goes takes its values with it):
 * longs, ints, doubles and floats in primitive arrays with a null bitmap, strings as UTF-8 in one
 * byte arena, decimals, UUIDs and booleans as objects. Columns of other types are not held: the
 * fold reads them from the table.
 */
final class MergeState {
  /** A held column: its position in the table's rows, field id and type. */
  record Column(int position, int fieldId, Type type) {}

  private final Column[] columns;
  private final Map<String, FileValues> files = new HashMap<>();

  private MergeState(Column[] columns) {
    this.columns = columns;
  }

  /** The columns of a layout whose rule reads the stored value and whose type can be held. */
  static MergeState forLayout(TableLayout layout) {
    List<Column> held = new ArrayList<>();
    Set<Integer> keys = new java.util.HashSet<>();
    for (int p : layout.keyPositions()) {
      keys.add(p);
    }
    for (int i = 0; i < layout.columnCount(); i++) {
      Types.NestedField f = layout.column(i);
      if (!keys.contains(i) && layout.rules()[i].readsStoredValue() && holds(f.type())) {
        held.add(new Column(i, f.fieldId(), f.type()));
      }
    }
    return new MergeState(held.toArray(Column[]::new));
  }

  /** Types whose values are held (and persist exactly through Iceberg's single-value encoding). */
  static boolean holds(Type type) {
    return switch (type.typeId()) {
      case INTEGER, LONG, FLOAT, DOUBLE, STRING, DECIMAL, UUID, BOOLEAN -> true;
      default -> false;
    };
  }

  Column[] columns() {
    return columns;
  }

  /** Whether the column at a position of the layout's rows is held, with the type the layout gives it. */
  boolean holdsColumn(TableLayout layout, int position) {
    for (Column c : columns) {
      if (c.position() == position) {
        return c.fieldId() == layout.column(position).fieldId() && c.type().equals(layout.column(position).type());
      }
    }
    return false;
  }

  /** Which columns this state holds, as a string that names field ids and types: persisted copies must match it. */
  String describe() {
    StringBuilder sb = new StringBuilder();
    for (Column c : columns) {
      sb.append(c.position()).append(':').append(c.fieldId()).append(':').append(c.type()).append(';');
    }
    return sb.toString();
  }

  /** Records a stored row's held values, read as the layout's schema. */
  void record(String file, long fileRecords, long position, Record row) {
    if (columns.length == 0) {
      return;
    }
    FileValues values = files.computeIfAbsent(file, f -> new FileValues(columns, Math.toIntExact(fileRecords)));
    for (int c = 0; c < columns.length; c++) {
      Types.NestedField f = row.struct().field(columns[c].fieldId());
      Object v = f == null ? null : ValueCoercion.coerce(row.getField(f.name()), columns[c].type());
      values.columns[c].set((int) position, v);
    }
  }

  /** As {@link #record(String, long, long, Record)}, from a row as it was written (table column order). */
  void recordRow(String file, long fileRecords, long position, Object[] row) {
    recordRow(file, fileRecords, position, p -> row[p]);
  }

  /** As {@link #recordRow(String, long, long, Object[])}, each held column's value given by its table position. */
  void recordRow(String file, long fileRecords, long position, java.util.function.IntFunction<Object> valueAt) {
    if (columns.length == 0) {
      return;
    }
    FileValues values = files.computeIfAbsent(file, f -> new FileValues(columns, Math.toIntExact(fileRecords)));
    for (int c = 0; c < columns.length; c++) {
      values.columns[c].set((int) position, ValueCoercion.coerce(valueAt.apply(columns[c].position()), columns[c].type()));
    }
  }

  /** A file's values are complete: its string arenas give back their slack. */
  void sealFile(String file) {
    FileValues values = files.get(file);
    if (values != null) {
      for (Values v : values.columns) {
        v.trim();
      }
    }
  }

  /** The held value of a column (an index into {@link #columns()}) at a row. */
  Object value(String file, long position, int column) {
    FileValues values = files.get(file);
    return values == null ? null : values.value(position, column);
  }

  /** The values held for one file, or null: for reading many of its rows without a lookup per value. */
  FileValues file(String file) {
    return files.get(file);
  }

  /** Whether this state holds the values of a file. */
  boolean hasFile(String file) {
    return columns.length == 0 || files.containsKey(file);
  }

  void removeFiles(Predicate<String> path) {
    files.keySet().removeIf(path);
  }

  /** Bytes held, roughly (arrays and arenas; object values counted at 32 bytes each). */
  long footprintBytes() {
    long bytes = 0;
    for (FileValues f : files.values()) {
      for (Values v : f.columns) {
        bytes += v.footprintBytes();
      }
    }
    return bytes;
  }

  void write(DataOutputStream out) throws IOException {
    write(out, false);
  }

  /**
   * @param valueByValue each value as an object through Iceberg's single-value encoding, the general
   *     path: the reference that the columns' own writers (longs, ints and strings straight from
   *     their arrays) are compared to in a test
   */
  void write(DataOutputStream out, boolean valueByValue) throws IOException {
    out.writeUTF(describe());
    out.writeInt(columns.length == 0 ? 0 : files.size());
    if (columns.length == 0) {
      return;
    }
    for (Map.Entry<String, FileValues> e : files.entrySet()) {
      out.writeUTF(e.getKey());
      out.writeInt(e.getValue().rows);
      for (int c = 0; c < columns.length; c++) {
        Values v = e.getValue().columns[c];
        if (valueByValue) {
          v.writeValueByValue(out, columns[c].type(), e.getValue().rows);
        } else {
          v.write(out, columns[c].type(), e.getValue().rows);
        }
      }
    }
  }

  /** Reads what {@link #write} wrote into this (empty) state, keeping the files that are live; a copy of other columns throws. */
  void read(DataInputStream in, Predicate<String> liveFile) throws IOException {
    if (!in.readUTF().equals(describe())) {
      throw new IllegalStateException("persisted merge state of other columns");
    }
    int n = in.readInt();
    for (int f = 0; f < n; f++) {
      String file = in.readUTF();
      // a file no entry points to any more (a truncate dropped it) may still be here: read past it
      boolean live = liveFile.test(file);
      int rows = in.readInt();
      FileValues values = new FileValues(columns, rows);
      for (int c = 0; c < columns.length; c++) {
        for (int p = 0; p < rows; p++) {
          int length = in.readInt();
          if (length >= 0) {
            byte[] bytes = new byte[length];
            in.readFully(bytes);
            Object v = Conversions.fromByteBuffer(columns[c].type(), ByteBuffer.wrap(bytes));
            values.columns[c].set(p, v instanceof CharSequence cs ? cs.toString() : v);
          }
        }
      }
      if (live) {
        files.put(file, values);
        sealFile(file);
      }
    }
  }

  /** One data file's held values, per column, by row position. */
  /** The held columns of one data file, by row position. */
  static final class FileValues {
    final int rows;
    final Values[] columns;

    FileValues(Column[] held, int rows) {
      this.rows = rows;
      this.columns = new Values[held.length];
      for (int c = 0; c < held.length; c++) {
        columns[c] = Values.of(held[c].type(), rows);
      }
    }

    /** The held value of a column (an index into {@link MergeState#columns()}) at a row. */
    Object value(long position, int column) {
      return columns[column].get((int) position);
    }
  }

  /** One column of one file. */
  private abstract static class Values {
    abstract void set(int position, Object value);

    abstract Object get(int position);

    abstract long footprintBytes();

    void trim() {}

    /** Writes positions 0 to {@code rows}: per value its length and Iceberg's single-value bytes, or -1 for null. */
    void write(DataOutputStream out, Type type, int rows) throws IOException {
      writeValueByValue(out, type, rows);
    }

    final void writeValueByValue(DataOutputStream out, Type type, int rows) throws IOException {
      for (int p = 0; p < rows; p++) {
        Object value = get(p);
        if (value == null) {
          out.writeInt(-1);
        } else {
          ByteBuffer b = Conversions.toByteBuffer(type, value);
          out.writeInt(b.remaining());
          out.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
        }
      }
    }

    static Values of(Type type, int rows) {
      return switch (type.typeId()) {
        case LONG -> new Longs(rows);
        case INTEGER -> new Ints(rows);
        case DOUBLE -> new Doubles(rows);
        case FLOAT -> new Floats(rows);
        case STRING -> new Strings(rows);
        default -> new Objects(rows);
      };
    }
  }

  /** A bitmap of the positions that hold a value (the others are null). */
  private abstract static class Primitive extends Values {
    final long[] present;

    Primitive(int rows) {
      present = new long[(rows + 63) >>> 6];
    }

    boolean has(int p) {
      return (present[p >>> 6] & (1L << p)) != 0;
    }

    /**
     * Positions 0 to {@code rows} from the arrays: -1 for null, else the length and Iceberg's
     * single-value bytes (numbers little-endian) as {@link #writePresent} writes them.
     */
    @Override
    final void write(DataOutputStream out, Type type, int rows) throws IOException {
      for (int p = 0; p < rows; p++) {
        if (has(p)) {
          writePresent(out, p);
        } else {
          out.writeInt(-1);
        }
      }
    }

    /** The length and single-value bytes of the value at {@code p}, which is not null. */
    abstract void writePresent(DataOutputStream out, int p) throws IOException;

    void mark(int p, boolean value) {
      if (value) {
        present[p >>> 6] |= 1L << p;
      } else {
        present[p >>> 6] &= ~(1L << p);
      }
    }
  }

  private static final class Longs extends Primitive {
    final long[] values;

    Longs(int rows) {
      super(rows);
      values = new long[rows];
    }

    @Override
    void set(int p, Object v) {
      mark(p, v != null);
      values[p] = v == null ? 0 : (Long) v;
    }

    @Override
    Object get(int p) {
      return has(p) ? values[p] : null;
    }

    @Override
    void writePresent(DataOutputStream out, int p) throws IOException {
      out.writeInt(Long.BYTES);
      out.writeLong(Long.reverseBytes(values[p]));
    }

    @Override
    long footprintBytes() {
      return values.length * 8L + present.length * 8L;
    }
  }

  private static final class Ints extends Primitive {
    final int[] values;

    Ints(int rows) {
      super(rows);
      values = new int[rows];
    }

    @Override
    void set(int p, Object v) {
      mark(p, v != null);
      values[p] = v == null ? 0 : (Integer) v;
    }

    @Override
    Object get(int p) {
      return has(p) ? values[p] : null;
    }

    @Override
    void writePresent(DataOutputStream out, int p) throws IOException {
      out.writeInt(Integer.BYTES);
      out.writeInt(Integer.reverseBytes(values[p]));
    }

    @Override
    long footprintBytes() {
      return values.length * 4L + present.length * 8L;
    }
  }

  private static final class Doubles extends Primitive {
    final double[] values;

    Doubles(int rows) {
      super(rows);
      values = new double[rows];
    }

    @Override
    void set(int p, Object v) {
      mark(p, v != null);
      values[p] = v == null ? 0 : (Double) v;
    }

    @Override
    Object get(int p) {
      return has(p) ? values[p] : null;
    }

    @Override
    long footprintBytes() {
      return values.length * 8L + present.length * 8L;
    }

    @Override
    void writePresent(DataOutputStream out, int p) throws IOException {
      out.writeInt(Double.BYTES);
      out.writeLong(Long.reverseBytes(Double.doubleToRawLongBits(values[p])));
    }
  }

  private static final class Floats extends Primitive {
    final float[] values;

    Floats(int rows) {
      super(rows);
      values = new float[rows];
    }

    @Override
    void set(int p, Object v) {
      mark(p, v != null);
      values[p] = v == null ? 0 : (Float) v;
    }

    @Override
    Object get(int p) {
      return has(p) ? values[p] : null;
    }

    @Override
    long footprintBytes() {
      return values.length * 4L + present.length * 8L;
    }

    @Override
    void writePresent(DataOutputStream out, int p) throws IOException {
      out.writeInt(Float.BYTES);
      out.writeInt(Integer.reverseBytes(Float.floatToRawIntBits(values[p])));
    }
  }

  /** UTF-8 bytes in one arena: offset and length per position, length -1 for null. */
  private static final class Strings extends Values {
    final int[] offsets;
    final int[] lengths;
    byte[] arena;
    int size;

    Strings(int rows) {
      offsets = new int[rows];
      lengths = new int[rows];
      Arrays.fill(lengths, -1);
      arena = new byte[Math.max(16, Math.min(rows * 8, 1 << 20))];
    }

    @Override
    void set(int p, Object v) {
      if (v == null) {
        lengths[p] = -1;
        return;
      }
      // a string held as UTF-8 already (a packed row's slice, Avro's Utf8) is copied as it is, not decoded and encoded again
      byte[] b;
      int from = 0;
      int length;
      if (v instanceof Utf8Slice slice) {
        b = slice.bytes();
        from = slice.offset();
        length = slice.byteLength();
      } else if (v instanceof org.apache.avro.util.Utf8 u) {
        b = u.getBytes();
        length = u.getByteLength();
      } else {
        b = v.toString().getBytes(StandardCharsets.UTF_8);
        length = b.length;
      }
      if (size + length > arena.length) {
        arena = Arrays.copyOf(arena, Math.toIntExact(Math.max(arena.length * 3L / 2, (long) size + length)));
      }
      System.arraycopy(b, from, arena, size, length);
      offsets[p] = size;
      lengths[p] = length;
      size += length;
    }

    @Override
    Object get(int p) {
      return lengths[p] < 0 ? null : new String(arena, offsets[p], lengths[p], StandardCharsets.UTF_8);
    }

    /** The arena holds each string's UTF-8 bytes, which are what Iceberg encodes a string as. */
    @Override
    void write(DataOutputStream out, Type type, int rows) throws IOException {
      for (int p = 0; p < rows; p++) {
        out.writeInt(lengths[p]);
        if (lengths[p] > 0) {
          out.write(arena, offsets[p], lengths[p]);
        }
      }
    }

    @Override
    void trim() {
      if (arena.length > size) {
        arena = Arrays.copyOf(arena, size);
      }
    }

    @Override
    long footprintBytes() {
      return offsets.length * 8L + arena.length;
    }
  }

  /** Decimals, UUIDs, booleans: one object per position. */
  private static final class Objects extends Values {
    final Object[] values;

    Objects(int rows) {
      values = new Object[rows];
    }

    @Override
    void set(int p, Object v) {
      values[p] = v;
    }

    @Override
    Object get(int p) {
      return values[p];
    }

    @Override
    long footprintBytes() {
      long n = 0;
      for (Object v : values) {
        n += v == null ? 0 : 32;
      }
      return values.length * 4L + n;
    }
  }
}
