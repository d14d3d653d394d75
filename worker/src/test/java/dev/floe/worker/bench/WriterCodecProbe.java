package dev.floe.worker.bench;

import java.io.File;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Parquet write and read cost per compression codec, best of several rounds alternating in one
 * process, on {@code orders}-shaped and contest-shaped rows as the worker hands them to Iceberg's
 * writer. A small smoke run keeps it honest; {@code -Dfloe.probe=true} runs 270k / 200k rows a file
 * ({@code -Dfloe.probe.shapes}, {@code -Dfloe.probe.codecs}, {@code -Dfloe.probe.rounds} narrow it).
 */
class WriterCodecProbe {
  static final Schema ORDERS = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "customer", Types.StringType.get()), Types.NestedField.optional(3, "status", Types.StringType.get()),
      Types.NestedField.optional(4, "amount", Types.DecimalType.of(12, 2)), Types.NestedField.optional(5, "note", Types.StringType.get()),
      Types.NestedField.optional(6, "updated_at", Types.TimestampType.withoutZone()), Types.NestedField.optional(7, "_floe_lsn", Types.LongType.get()));
  static final Schema CONTEST = new Schema(Types.NestedField.required(1, "uuid", Types.UUIDType.get()),
      Types.NestedField.optional(2, "ip", Types.StringType.get()), Types.NestedField.optional(3, "hostname", Types.StringType.get()),
      Types.NestedField.optional(4, "requests", Types.LongType.get()), Types.NestedField.optional(5, "name", Types.StringType.get()),
      Types.NestedField.optional(6, "city", Types.StringType.get()), Types.NestedField.optional(7, "job", Types.StringType.get()),
      Types.NestedField.optional(8, "phonenum", Types.StringType.get()), Types.NestedField.optional(9, "_floe_lsn", Types.LongType.get()));

  @Test
  void smoke() throws Exception {
    run(2_000, 1);
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.probe", matches = "true")
  void codecs() throws Exception {
    run(0, Integer.getInteger("floe.probe.rounds", 8));
  }

  /** @param rows rows a file, or 0 for each shape's full size */
  private static void run(int rows, int rounds) throws Exception {
    for (String shape : System.getProperty("floe.probe.shapes", "orders,contest").split(",")) {
      Schema schema = shape.equals("orders") ? ORDERS : CONTEST;
      List<Record> data = shape.equals("orders") ? orders(rows > 0 ? rows : 270_000) : contest(rows > 0 ? rows : 200_000, schema);
      String[] codecs = System.getProperty("floe.probe.codecs", "zstd,zstd1,snappy,lz4_raw,uncompressed").split(",");
      long[] bestW = new long[codecs.length];
      long[] bestR = new long[codecs.length];
      long[] size = new long[codecs.length];
      java.util.Arrays.fill(bestW, Long.MAX_VALUE);
      java.util.Arrays.fill(bestR, Long.MAX_VALUE);
      for (int round = 0; round < rounds; round++) {
        for (int c = 0; c < codecs.length; c++) {
          File f = Files.createTempFile("codec", ".parquet").toFile();
          f.delete();
          long t0 = System.nanoTime();
          Parquet.WriteBuilder b = Parquet.write(org.apache.iceberg.Files.localOutput(f)).schema(schema)
              .createWriterFunc(GenericParquetWriter::create);
          if (codecs[c].equals("zstd1")) {
            b.set("write.parquet.compression-codec", "zstd").set("write.parquet.compression-level", "1");
          } else {
            b.set("write.parquet.compression-codec", codecs[c]);
          }
          try (FileAppender<Record> w = b.build()) {
            for (Record r : data) {
              w.add(r);
            }
          }
          long t1 = System.nanoTime();
          long n = 0;
          try (CloseableIterable<Record> in = Parquet.read(org.apache.iceberg.Files.localInput(f)).project(schema)
              .createReaderFunc(s -> GenericParquetReaders.buildReader(schema, s)).build()) {
            for (Record r : in) {
              n++;
            }
          }
          long t2 = System.nanoTime();
          bestW[c] = Math.min(bestW[c], (t1 - t0) / data.size());
          bestR[c] = Math.min(bestR[c], (t2 - t1) / data.size());
          size[c] = f.length();
          f.delete();
          if (n != data.size()) {
            throw new AssertionError("read " + n + " of " + data.size() + " rows");
          }
        }
      }
      for (int c = 0; c < codecs.length; c++) {
        System.out.printf(Locale.ROOT, "%s %-12s write %4d ns/row read %4d ns/row %,d bytes%n", shape, codecs[c], bestW[c], bestR[c], size[c]);
      }
    }
  }

  /** A string as the worker hands it to the writer: its UTF-8 bytes, as Avro's {@code Utf8}. */
  static Object u(String s) {
    return new org.apache.avro.util.Utf8(s);
  }

  static List<Record> orders(int n) {
    Random random = new Random(1);
    String[] status = {"new", "paid", "shipped", "delivered", "returned"};
    List<Record> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      GenericRecord r = GenericRecord.create(ORDERS);
      r.set(0, (long) random.nextInt(1_000_000));
      r.set(1, u("customer-" + random.nextInt(250_000)));
      r.set(2, u(status[random.nextInt(5)]));
      r.set(3, BigDecimal.valueOf(random.nextInt(1_000_000), 2));
      r.set(4, random.nextInt(4) == 0 ? null : u("note " + random.nextInt(100)));
      r.set(5, LocalDateTime.of(2026, 1, 1, 0, 0).plusNanos(random.nextInt(1_000_000_000) * 1000L));
      r.set(6, 1_000_000L + i);
      out.add(r);
    }
    return out;
  }

  static List<Record> contest(int n, Schema schema) {
    Random random = new Random(2);
    List<Record> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      GenericRecord r = GenericRecord.create(schema);
      r.set(0, new UUID(random.nextLong(), random.nextLong()));
      r.set(1, u("10." + random.nextInt(255) + ".0.1"));
      r.set(2, u("host-" + random.nextInt(10_000)));
      r.set(3, (long) random.nextInt(1000));
      r.set(4, random.nextInt(4) == 0 ? null : u("name-" + random.nextInt(100_000)));
      r.set(5, u("city-" + random.nextInt(500)));
      r.set(6, u("job-" + random.nextInt(50)));
      r.set(7, u(String.valueOf(13_000_000_000L + random.nextInt(1_000_000_000))));
      r.set(8, 1_000_000L + i);
      out.add(r);
    }
    return out;
  }
}
