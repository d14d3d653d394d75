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
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
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
  public static GenericFileWriterFactory factoryFor(Table table, Schema schema) {
    return EqualityDeltaWriter.dataFileWriters(table, schema);
  }

  /**
   * Writes and deletes the throwaway data file and its manifest; throws when a column's type has
   * no zero value here (nested, required).
   */
  public static void write(GenericFileWriterFactory factory, Schema schema, int formatVersion) {
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
