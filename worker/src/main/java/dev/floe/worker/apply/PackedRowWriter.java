package dev.floe.worker.apply;

import dev.floe.worker.decode.Utf8Slice;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.ParquetValueWriters;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Iceberg's Parquet writer of a table's records, column by column, except for two kinds of
 * top-level column. A string column writes the UTF-8 bytes a packed row holds its text in ({@link
 * Utf8Slice}) as they are: Iceberg's own string writer takes bytes only from Avro's {@code Utf8},
 * which owns its array from offset 0, so each packed string was copied into one per row: two
 * objects per string and row for the collector (docs/benchmarks.md, item 12). A uuid column writes
 * its 16 bytes from a buffer of its own, where Iceberg's looks up a thread-local one per value.
 * Every other column is Iceberg's writer of that column, run on a one-field record: levels, nulls,
 * metrics and encodings are Iceberg's.
 */
final class PackedRowWriter implements ParquetValueWriter<Record> {
  /** Per top-level column: its string or uuid writer, or null where {@link #others} writes it. */
  private final ParquetValueWriter<Object>[] direct;
  /** Per top-level column: Iceberg's writer of a record of that column alone, or null for a {@link #direct} one. */
  private final ParquetValueWriter<Record>[] others;
  /** Per column of {@link #others}: the one-field record refilled for each row. */
  private final GenericRecord[] single;
  private final List<ParquetValueWriter<?>> all;
  private final List<TripleWriter<?>> columns;

  @SuppressWarnings("unchecked")
  private PackedRowWriter(Schema schema, MessageType type) {
    int n = schema.columns().size();
    direct = new ParquetValueWriter[n];
    others = new ParquetValueWriter[n];
    single = new GenericRecord[n];
    all = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Types.NestedField field = schema.columns().get(i);
      org.apache.parquet.schema.Type column = type.getType(i);
      ParquetValueWriter<?> w;
      ParquetValueWriters.PrimitiveWriter<Object> own = ownWriter(field, column, type);
      if (own != null) {
        w = ParquetValueWriters.option(column, type.getMaxDefinitionLevel(column.getName()), own);
        direct[i] = (ParquetValueWriter<Object>) w;
      } else {
        Schema alone = new Schema(field);
        w = GenericParquetWriter.create(alone, new MessageType(type.getName(), column));
        others[i] = (ParquetValueWriter<Record>) w;
        single[i] = GenericRecord.create(alone);
      }
      all.add(w);
    }
    List<TripleWriter<?>> cols = new ArrayList<>();
    all.forEach(w -> cols.addAll(w.columns()));
    columns = List.copyOf(cols);
  }

  /**
   * The writer of {@code schema}'s records into a file of {@code type}: this one where each column
   * of the file is the schema's column of the same place and id, else Iceberg's own.
   */
  static ParquetValueWriter<?> create(Schema schema, MessageType type) {
    List<Types.NestedField> fields = schema.columns();
    if (type.getFieldCount() != fields.size()) {
      return GenericParquetWriter.create(schema, type);
    }
    for (int i = 0; i < fields.size(); i++) {
      org.apache.parquet.schema.Type column = type.getType(i);
      if (column.getId() == null || column.getId().intValue() != fields.get(i).fieldId()) {
        return GenericParquetWriter.create(schema, type);
      }
    }
    return new PackedRowWriter(schema, type);
  }

  /** This class's writer of a top-level column of strings or uuids, as Iceberg lays them out; null for any other. */
  private static ParquetValueWriters.PrimitiveWriter<Object> ownWriter(Types.NestedField field, org.apache.parquet.schema.Type column,
      MessageType type) {
    if (!column.isPrimitive() || column.isRepetition(org.apache.parquet.schema.Type.Repetition.REPEATED)) {
      return null;
    }
    PrimitiveType primitive = column.asPrimitiveType();
    ColumnDescriptor desc = type.getColumnDescription(new String[] {column.getName()});
    if (field.type().typeId() == Type.TypeID.STRING && primitive.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.BINARY
        && column.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation) {
      return new BytesAsTheyAre(desc);
    }
    if (field.type().typeId() == Type.TypeID.UUID && primitive.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
        && primitive.getTypeLength() == 16) {
      return new UuidBytes(desc);
    }
    return null;
  }

  @Override
  public void write(int repetitionLevel, Record row) {
    for (int i = 0; i < direct.length; i++) {
      ParquetValueWriter<Object> own = direct[i];
      if (own != null) {
        own.write(repetitionLevel, row.get(i));
      } else {
        GenericRecord one = single[i];
        one.set(0, row.get(i));
        others[i].write(repetitionLevel, one);
      }
    }
  }

  @Override
  public List<TripleWriter<?>> columns() {
    return columns;
  }

  @Override
  public void setColumnStore(ColumnWriteStore store) {
    for (ParquetValueWriter<?> w : all) {
      w.setColumnStore(store);
    }
  }

  @Override
  public Stream<FieldMetrics<?>> metrics() {
    return all.stream().flatMap(ParquetValueWriter::metrics);
  }

  /** A string column's values written from the UTF-8 bytes they are held in, where they are; a string as Iceberg does. */
  private static final class BytesAsTheyAre extends ParquetValueWriters.PrimitiveWriter<Object> {
    BytesAsTheyAre(ColumnDescriptor desc) {
      super(desc);
    }

    @Override
    public void write(int repetitionLevel, Object value) {
      Binary bytes;
      if (value instanceof Utf8Slice slice) {
        bytes = Binary.fromReusedByteArray(slice.bytes(), slice.offset(), slice.byteLength());
      } else if (value instanceof Utf8 utf8) {
        bytes = Binary.fromReusedByteArray(utf8.getBytes(), 0, utf8.getByteLength());
      } else {
        bytes = Binary.fromString(value.toString());
      }
      column.writeBinary(repetitionLevel, bytes);
    }
  }

  /** A uuid column's values as Iceberg writes them (most significant byte first), from a buffer of the writer's own. */
  private static final class UuidBytes extends ParquetValueWriters.PrimitiveWriter<Object> {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private final byte[] buffer = new byte[16];

    UuidBytes(ColumnDescriptor desc) {
      super(desc);
    }

    @Override
    public void write(int repetitionLevel, Object value) {
      UUID uuid = (UUID) value;
      LONGS.set(buffer, 0, uuid.getMostSignificantBits());
      LONGS.set(buffer, 8, uuid.getLeastSignificantBits());
      column.writeBinary(repetitionLevel, Binary.fromReusedByteArray(buffer, 0, 16));
    }
  }
}
