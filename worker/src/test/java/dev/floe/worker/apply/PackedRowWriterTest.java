package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.decode.Utf8Slice;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer of packed rows against Iceberg's own (the reference): the same rows, their strings
 * held as strings, Avro {@code Utf8}s or slices of shared arrays, give files that read back the
 * same and carry the same metrics, null and NaN counts, bounds (uuids' among them) and column sizes.
 */
class PackedRowWriterTest {
  private static final Schema SCHEMA = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.required(3, "code", Types.StringType.get()),
      Types.NestedField.optional(4, "n", Types.IntegerType.get()),
      Types.NestedField.optional(5, "amount", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(6, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(7, "tstz", Types.TimestampType.withZone()),
      Types.NestedField.optional(8, "day", Types.DateType.get()),
      Types.NestedField.optional(9, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(10, "ratio", Types.DoubleType.get()),
      Types.NestedField.optional(11, "u", Types.UUIDType.get()),
      Types.NestedField.optional(12, "blob", Types.BinaryType.get()),
      Types.NestedField.optional(13, "tags", Types.ListType.ofOptional(14, Types.StringType.get())),
      Types.NestedField.optional(15, "address", Types.StructType.of(
          Types.NestedField.optional(16, "city", Types.StringType.get()),
          Types.NestedField.optional(17, "zip", Types.IntegerType.get()))),
      Types.NestedField.required(18, "ref", Types.UUIDType.get())));

  @TempDir
  Path dir;

  @Test
  void packedStringsWriteTheFileIcebergsOwnWriterWrites() throws IOException {
    Table table = table();
    for (int trial = 0; trial < 12; trial++) {
      // given rows of every common type, strings held in each of the three ways, nulls and NaNs among them
      Random random = new Random(trial);
      List<Record> rows = rows(random, 200 + random.nextInt(3_000));

      // when Iceberg's writer and this one write them
      DataFile reference = write(new GenericFileWriterFactory.Builder(table).dataSchema(SCHEMA).dataFileFormat(FileFormat.PARQUET).build(),
          rows, "reference-" + trial);
      DataFile packed = write(new DataFileWriters(table, SCHEMA), rows, "packed-" + trial);

      // then the files read back the same and carry the same metrics
      assertThat(read(packed)).as("trial %d: rows read back", trial).isEqualTo(read(reference));
      assertThat(packed.recordCount()).isEqualTo(rows.size());
      assertThat(packed.valueCounts()).as("trial %d: value counts", trial).isEqualTo(reference.valueCounts());
      assertThat(packed.nullValueCounts()).as("trial %d: null counts", trial).isEqualTo(reference.nullValueCounts());
      assertThat(packed.nanValueCounts()).as("trial %d: NaN counts", trial).isEqualTo(reference.nanValueCounts());
      assertThat(packed.lowerBounds()).as("trial %d: lower bounds", trial).isEqualTo(reference.lowerBounds());
      assertThat(packed.upperBounds()).as("trial %d: upper bounds", trial).isEqualTo(reference.upperBounds());
      assertThat(packed.columnSizes()).as("trial %d: column sizes (same encodings)", trial).isEqualTo(reference.columnSizes());
      assertThat(packed.fileSizeInBytes()).isEqualTo(reference.fileSizeInBytes());
    }
  }

  @Test
  void aSliceIsTheTextOfItsBytesWhereverTheyAreInTheirArray() {
    // given a shared array holding two strings one after the other, one of them not ASCII
    byte[] first = "Zürich".getBytes(StandardCharsets.UTF_8);
    byte[] shared = new byte[64];
    System.arraycopy(first, 0, shared, 7, first.length);
    System.arraycopy("Genf".getBytes(StandardCharsets.UTF_8), 0, shared, 7 + first.length, 4);

    // when each is sliced out of it
    Utf8Slice zurich = new Utf8Slice(shared, 7, first.length);
    Utf8Slice geneva = new Utf8Slice(shared, 7 + first.length, 4);

    // then each reads as its text, and equals another slice of the same bytes elsewhere
    assertThat(zurich).hasToString("Zürich");
    assertThat(zurich.length()).isEqualTo(6);
    assertThat(zurich.charAt(1)).isEqualTo('ü');
    assertThat(geneva).hasToString("Genf");
    assertThat(zurich).isEqualTo(new Utf8Slice(first, 0, first.length)).isNotEqualTo(geneva);
    assertThat(zurich.hashCode()).isEqualTo("Zürich".hashCode());
  }

  private Table table() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("test", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    return catalog.createTable(TableIdentifier.of("db", "t"), SCHEMA, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
  }

  private DataFile write(FileWriterFactory<Record> factory, List<Record> rows, String name) throws IOException {
    DataWriter<Record> writer = factory.newDataWriter(
        EncryptedFiles.plainAsEncryptedOutput(org.apache.iceberg.Files.localOutput(dir.resolve(name + ".parquet").toFile())),
        PartitionSpec.unpartitioned(), null);
    try (writer) {
      for (Record r : rows) {
        writer.write(r);
      }
    }
    return writer.toDataFile();
  }

  private static List<Record> read(DataFile file) throws IOException {
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = Parquet.read(org.apache.iceberg.Files.localInput(file.location()))
        .project(SCHEMA).createReaderFunc(type -> GenericParquetReaders.buildReader(SCHEMA, type)).build()) {
      rows.forEach(out::add);
    }
    return out;
  }

  private static List<Record> rows(Random random, int count) {
    byte[] shared = new byte[count * 40 + 1024];
    int[] used = {random.nextInt(16)};
    List<Record> rows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.set(0, (long) i);
      r.set(1, random.nextInt(5) == 0 ? null : held(text(random), random, shared, used));
      r.set(2, held(random.nextInt(3) == 0 ? "c" + random.nextInt(8) : text(random), random, shared, used));
      r.set(3, random.nextInt(6) == 0 ? null : random.nextInt());
      r.set(4, random.nextInt(6) == 0 ? null : BigDecimal.valueOf(random.nextLong() % 100_000_000_000L, 2));
      r.set(5, random.nextInt(6) == 0 ? null : LocalDateTime.of(2026, 1 + random.nextInt(12), 1 + random.nextInt(28), random.nextInt(24), 0, 0, random.nextInt(1_000_000) * 1_000));
      r.set(6, random.nextInt(6) == 0 ? null : OffsetDateTime.of(2020 + random.nextInt(7), 1, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusSeconds(random.nextInt(1 << 30)));
      r.set(7, random.nextInt(6) == 0 ? null : LocalDate.ofEpochDay(random.nextInt(40_000)));
      r.set(8, random.nextInt(6) == 0 ? null : random.nextBoolean());
      r.set(9, random.nextInt(6) == 0 ? null : random.nextInt(10) == 0 ? Double.NaN : random.nextGaussian());
      r.set(10, random.nextInt(6) == 0 ? null : new UUID(random.nextLong(), random.nextLong()));
      byte[] blob = new byte[random.nextInt(12)];
      random.nextBytes(blob);
      r.set(11, random.nextInt(6) == 0 ? null : ByteBuffer.wrap(blob));
      r.set(12, random.nextInt(4) == 0 ? null : random.nextBoolean() ? List.of() : java.util.Arrays.asList(text(random), null, "t" + random.nextInt(3)));
      Record address = GenericRecord.create(SCHEMA.findField("address").type().asStructType());
      address.set(0, random.nextInt(3) == 0 ? null : "city-" + random.nextInt(50));
      address.set(1, random.nextInt(1000));
      r.set(13, random.nextInt(4) == 0 ? null : address);
      r.set(14, new UUID(random.nextLong(), random.nextLong()));
      rows.add(r);
    }
    return rows;
  }

  /** Text of ASCII, two-, three- and four-byte UTF-8 characters, sometimes empty. */
  private static String text(Random random) {
    String[] pieces = {"a", "Z", "9", "-", "é", "ß", "中", "語", "😀", " "};
    StringBuilder s = new StringBuilder();
    int length = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(24);
    for (int i = 0; i < length; i++) {
      s.append(pieces[random.nextInt(random.nextBoolean() ? 4 : pieces.length)]);
    }
    return s.toString();
  }

  /** The string as a string, as Avro's Utf8, or as a slice of its bytes copied into the shared array. */
  private static Object held(String s, Random random, byte[] shared, int[] used) {
    switch (random.nextInt(3)) {
      case 0:
        return s;
      case 1:
        return new Utf8(s);
      default:
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(bytes, 0, shared, used[0], bytes.length);
        Utf8Slice slice = new Utf8Slice(shared, used[0], bytes.length);
        used[0] += bytes.length + random.nextInt(3);
        return slice;
    }
  }
}
