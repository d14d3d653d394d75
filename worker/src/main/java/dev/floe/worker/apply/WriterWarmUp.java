package dev.floe.worker.apply;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one row of zero values in the table's schema to a local temporary Parquet file, with the
 * writer and table properties (codec, page sizes) its batches use, and deletes it: a worker woken
 * from zero otherwise loads and first runs the whole Parquet stack inside its first commit. Runs
 * beside the index load, before the first batch; best effort (the first commit does it anyway).
 */
public final class WriterWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(WriterWarmUp.class);

  private WriterWarmUp() {}

  /**
   * The factory batches write data files with, made from the table now, on the thread that owns
   * it; {@link #write} may run on another.
   */
  public static DataFileWriters factoryFor(Table table, Schema schema) {
    return EqualityDeltaWriter.dataFileWriters(table, schema);
  }

  /**
   * Writes and deletes the throwaway data file and its manifest; throws when a column's type has
   * no zero value here (nested, required).
   */
  public static void write(DataFileWriters factory, Schema schema, int formatVersion) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("floe-warm-up-");
      DataWriter<Record> writer = factory.newDataWriter(
          EncryptedFiles.plainAsEncryptedOutput(org.apache.iceberg.Files.localOutput(dir.resolve("row.parquet").toFile())),
          PartitionSpec.unpartitioned(), null);
      try (writer) {
        writer.write(zeroRow(schema));
      }
      // and the manifest a commit writes for it (Avro): the rest of a first commit's class loading
      ManifestWriter<DataFile> manifest = ManifestFiles.write(formatVersion, PartitionSpec.unpartitioned(),
          org.apache.iceberg.Files.localOutput(dir.resolve("manifest.avro").toFile()), null);
      try (manifest) {
        manifest.add(writer.toDataFile());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (dir != null) {
        deleteQuietly(dir.resolve("row.parquet"));
        deleteQuietly(dir.resolve("manifest.avro"));
        deleteQuietly(dir);
      }
    }
  }

  /** The column types Debezium's PostgreSQL connector gives most often, a long key first: what a new table is likely made of. */
  static final Schema COMMON_COLUMNS = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "i", Types.IntegerType.get()),
      Types.NestedField.optional(3, "s", Types.StringType.get()),
      Types.NestedField.optional(4, "dec", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(5, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(6, "tstz", Types.TimestampType.withZone()),
      Types.NestedField.optional(7, "day", Types.DateType.get()),
      Types.NestedField.optional(8, "b", Types.BooleanType.get()),
      Types.NestedField.optional(9, "d", Types.DoubleType.get()),
      Types.NestedField.optional(10, "u", Types.UUIDType.get()),
      Types.NestedField.optional(11, TableLayout.LSN_COLUMN, Types.LongType.get())), Set.of(1));

  /**
   * For a sink whose table does not exist yet, which its first batch creates: the same throwaway
   * write, in a table of {@link #COMMON_COLUMNS} with the new table's properties, created in an
   * in-memory catalog (which runs Iceberg's table creation, metadata written as JSON, once too).
   * The first commit of a new table ran all of that cold: 2.6 s from its decoded batch to its commit
   * in the full-size benchmark, against 0.6-0.8 s for a table the warm-up had seen.
   */
  public static void writeForNewTable(Map<String, String> properties, int formatVersion) {
    InMemoryCatalog catalog = new InMemoryCatalog();
    try (catalog) {
      catalog.initialize("floe-warm-up", Map.of());
      catalog.createNamespace(Namespace.of("warm_up"));
      Map<String, String> tableProperties = new HashMap<>(properties);
      tableProperties.put(TableProperties.FORMAT_VERSION, String.valueOf(formatVersion));
      Table table = catalog.buildTable(TableIdentifier.of("warm_up", "t"), COMMON_COLUMNS).withProperties(tableProperties).create();
      write(factoryFor(table, table.schema()), table.schema(), formatVersion);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Record zeroRow(Schema schema) {
    GenericRecord row = GenericRecord.create(schema);
    for (Types.NestedField f : schema.columns()) {
      row.setField(f.name(), zero(f));
    }
    return row;
  }

  private static Object zero(Types.NestedField field) {
    Type type = field.type();
    return switch (type.typeId()) {
      case BOOLEAN -> false;
      case INTEGER -> 0;
      case LONG -> 0L;
      case FLOAT -> 0f;
      case DOUBLE -> 0d;
      case DATE -> LocalDate.EPOCH;
      case TIME -> LocalTime.MIDNIGHT;
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC()
          ? LocalDateTime.of(LocalDate.EPOCH, LocalTime.MIDNIGHT).atOffset(ZoneOffset.UTC)
          : LocalDateTime.of(LocalDate.EPOCH, LocalTime.MIDNIGHT);
      case STRING -> "";
      case UUID -> new UUID(0, 0);
      case FIXED -> new byte[((Types.FixedType) type).length()];
      case BINARY -> ByteBuffer.allocate(0);
      case DECIMAL -> BigDecimal.ZERO.setScale(((Types.DecimalType) type).scale());
      default -> {
        if (field.isRequired()) {
          throw new IllegalArgumentException("no zero value for required column " + field.name() + " of type " + type);
        }
        yield null;
      }
    };
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      LOG.debug("could not delete {}: {}", p, e.toString()); // a leftover in the temporary directory, nothing of the table's
    }
  }
}
