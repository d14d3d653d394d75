package dev.floe.worker.quickstart;

import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SchemaRegistrySpec;
import dev.floe.worker.config.SourceFormat;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.runtime.SinkRunner;
import dev.floe.worker.runtime.WorkerMetrics;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Floe's main job on the embedded default, with nothing installed but Java: a real Kafka broker in
 * this process, a stream of Debezium events for an {@code orders} table, and the worker keeping a
 * local Iceberg table (SQLite catalog, Parquet files) equal to the source, with progress and a
 * summary a person can read.
 */
public final class Quickstart {
  static final String TOPIC = "shop.public.orders";
  static final String DLQ = "floe.dlq.orders";
  static final int PARTITIONS = 4;

  private Quickstart() {}

  /** What to run. */
  public record Options(int events, int keys, Path warehouse, SourceFormat format) {
    public Options(int events, int keys, Path warehouse) {
      this(events, keys, warehouse, SourceFormat.JSON);
    }
  }

  /** What the run did. */
  public record Summary(long events, long records, long rows, long sourceRows, boolean equal, int snapshots,
      long dataFiles, long deleteFiles, long lag, double seconds, double eventsPerSecond) {}

  public static Summary run(Options o, PrintStream out) throws Exception {
    out.printf("Floe quickstart: %,d Debezium change events for shop.public.orders (%,d keys) -> Iceberg table quickstart.orders%n", o.events(), o.keys());
    out.println("  starting a Kafka broker in this process (KRaft) ...");
    boolean avro = o.format() == SourceFormat.AVRO;
    if (avro) {
      out.println("  starting a schema registry in this process (Apicurio's REST API, in memory) ...");
    }
    try (EmbeddedKafka kafka = new EmbeddedKafka(); EmbeddedSchemaRegistry registry = avro ? EmbeddedSchemaRegistry.start() : null) {
      kafka.createTopic(TOPIC, PARTITIONS);
      kafka.createTopic(DLQ, 1);
      CatalogSpec catalogSpec = CatalogSpec.local(o.warehouse().toString());
      Catalog catalog = CatalogLoader.load("floe", catalogSpec, SecretResolver.fromEnvironment());
      TableIdentifier id = TableIdentifier.of("quickstart", "orders");
      if (catalog.tableExists(id)) {
        catalog.dropTable(id, true); // a fresh broker starts offsets at 0: start the demo table afresh too
      }
      SinkSpec spec = new SinkSpec(
          avro ? new SourceSpec(kafka.bootstrapServers(), List.of(TOPIC), null, "floe-quickstart", null, null)
                  .withAvro(SchemaRegistrySpec.at(registry.baseUrl()))
              : new SourceSpec(kafka.bootstrapServers(), List.of(TOPIC), null, "floe-quickstart", null, null),
          new TableSpec(catalogSpec, "quickstart.orders", List.of(), List.of(), 2, null, Map.of(), Map.of()),
          new CommitSpec("1s", 20_000, null), new DeadLetterSpec(DLQ), null);
      out.printf("  broker %s, warehouse %s%s%n", kafka.bootstrapServers(), o.warehouse().toAbsolutePath(),
          avro ? ", schema registry " + registry.baseUrl() + " (records in Avro, Confluent wire format)" : "");

      OrdersStream stream = new OrdersStream(TOPIC, o.keys(), PARTITIONS, 7);
      AtomicLong produced = new AtomicLong();
      String registryUrl = avro ? registry.baseUrl() : null;
      Thread producer = new Thread(() -> produce(kafka.bootstrapServers(), stream, o.events(), produced, registryUrl), "quickstart-producer");
      SinkEngine engine = new SinkEngine(spec, catalog);
      WorkerMetrics metrics = new WorkerMetrics(spec.sinkId());
      SinkRunner runner = new SinkRunner(spec, engine, metrics, SecretResolver.fromEnvironment());
      Thread worker = new Thread(runner, "floe-worker");
      long start = System.nanoTime();
      producer.start();
      worker.start();

      long applied = 0;
      while (producer.isAlive() || applied < produced.get()) {
        Thread.sleep(1000);
        applied = engine.offsets().next().values().stream().mapToLong(Long::longValue).sum();
        int snapshots = engine.table() == null ? 0 : size(engine.table().snapshots());
        out.printf(Locale.ROOT, "  [%5.1fs] produced %,d records | applied %,d | lag %,d | snapshots %d%n",
            (System.nanoTime() - start) / 1e9, produced.get(), applied, produced.get() - applied, snapshots);
        if (!worker.isAlive()) {
          throw new IllegalStateException("the worker stopped", runner.failure());
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      runner.stop();
      worker.join();
      runner.close();

      Table table = engine.table();
      Map<Long, Map<String, Object>> lake = read(table);
      boolean equal = lake.equals(normalise(stream.rows()));
      Snapshot current = table.currentSnapshot();
      Summary s = new Summary(stream.events(), produced.get(), lake.size(), stream.rows().size(), equal,
          size(table.snapshots()), total(current, "total-data-files"), total(current, "total-delete-files"),
          produced.get() - applied, seconds, stream.events() / seconds);
      print(s, table, lake, o, out);
      return s;
    }
  }

  /** Streams the events; with a registry, in Avro as Kafka Connect's AvroConverter writes them. */
  private static void produce(String bootstrap, OrdersStream stream, int events, AtomicLong produced, String registryUrl) {
    Map<String, Object> config = Map.of("bootstrap.servers", bootstrap, "acks", "all", "linger.ms", "5");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        AvroEnvelopes avro = registryUrl == null ? null : new AvroEnvelopes(registryUrl)) {
      int chunk = Math.max(500, events / 40);
      for (int sent = 0; sent < events; sent += chunk) {
        List<RawRecord> records = stream.next(Math.min(chunk, events - sent));
        for (RawRecord generated : records) {
          RawRecord r = avro == null ? generated : avro.toAvro(generated);
          producer.send(new ProducerRecord<>(r.topic(), r.partition(), r.key(), r.valueIsNull() ? null : r.value()));
        }
        producer.flush();
        produced.addAndGet(records.size());
        Thread.sleep(100); // a live stream, not one burst
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void print(Summary s, Table table, Map<Long, Map<String, Object>> lake, Options o, PrintStream out) {
    out.println();
    out.printf(Locale.ROOT, "Floe quickstart: done in %.1f s%n", s.seconds());
    out.printf(Locale.ROOT, "  events in        %,d Debezium change events (%,d Kafka records with tombstones)%n", s.events(), s.records());
    out.printf(Locale.ROOT, "  rows in table    %,d; the source has %,d: %s%n", s.rows(), s.sourceRows(),
        s.equal() ? "equal, row for row" : "DIFFERENT");
    out.printf(Locale.ROOT, "  snapshots        %d; files: %d data, %d delete%n", s.snapshots(), s.dataFiles(), s.deleteFiles());
    out.printf(Locale.ROOT, "  lag              %,d%n", s.lag());
    out.printf(Locale.ROOT, "  throughput       %,.0f events/s from the first poll to lag 0%n", s.eventsPerSecond());
    out.printf("  table            quickstart.orders at %s%n", table.location());
    out.println();
    out.printf("  %-6s %-14s %-8s %-10s %10s  %s%n", "id", "customer", "city", "status", "amount", "updated_at");
    lake.values().stream().limit(5).forEach(r -> out.printf("  %-6s %-14s %-8s %-10s %10s  %s%n",
        r.get("id"), r.get("customer"), r.get("city"), r.get("status"), r.get("amount"), r.get("updated_at")));
    out.println();
    out.printf("Query it with any Iceberg reader: JDBC catalog jdbc:sqlite:%s/catalog.db, warehouse %s%n",
        o.warehouse().toAbsolutePath(), o.warehouse().toAbsolutePath());
  }

  private static Map<Long, Map<String, Object>> read(Table table) {
    Map<Long, Map<String, Object>> out = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        Map<String, Object> row = new TreeMap<>();
        table.schema().columns().stream().filter(c -> !c.name().equals(TableLayout.LSN_COLUMN))
            .forEach(c -> row.put(c.name(), normalise(r.getField(c.name()))));
        out.put((Long) r.getField("id"), row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static Map<Long, Map<String, Object>> normalise(Map<Long, Map<String, Object>> rows) {
    Map<Long, Map<String, Object>> out = new TreeMap<>();
    rows.forEach((id, row) -> {
      Map<String, Object> n = new TreeMap<>();
      row.forEach((k, v) -> n.put(k, normalise(v)));
      out.put(id, n);
    });
    return out;
  }

  private static Object normalise(Object v) {
    if (v instanceof BigDecimal d) {
      return d.setScale(2);
    }
    if (v instanceof OffsetDateTime t) {
      return t.toInstant();
    }
    return v;
  }

  private static long total(Snapshot s, String key) {
    return s == null ? 0 : Long.parseLong(Objects.requireNonNullElse(s.summary().get(key), "0"));
  }

  private static int size(Iterable<?> it) {
    List<Object> l = new ArrayList<>();
    it.forEach(l::add);
    return l.size();
  }
}
