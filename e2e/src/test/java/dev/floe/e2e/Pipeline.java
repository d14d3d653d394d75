package dev.floe.e2e;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkConfigLoader;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.quickstart.EmbeddedKafka;
import dev.floe.worker.quickstart.PostgresCapture;
import dev.floe.worker.config.SchemaRegistrySpec;
import dev.floe.worker.testing.DebeziumAvroCapture;
import dev.floe.worker.testing.Postgres;
import dev.floe.worker.testing.SchemaRegistryServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * One whole pipeline: the workload's PostgreSQL tables captured by Debezium's PostgreSQL connector
 * (embedded engine) into a real Kafka broker (KRaft, in this JVM), one sink per table run by
 * {@code floe run} child JVMs into a lake: local files with the SQLite catalog, or S3 with the REST
 * catalog.
 */
final class Pipeline implements AutoCloseable {
  /** A sink of the pipeline: its config file and what it keeps equal. */
  record Sink(String name, String topic, int partitions, SinkSpec spec, Path config, String sourceTable, List<String> key) {}

  private static final CompactionSpec COMPACTION = new CompactionSpec(null, null, 2, "0s", 3, "1h", 5, true, true, true, true);

  final Path dir;
  final EmbeddedKafka kafka;
  final Map<String, Sink> sinks = new LinkedHashMap<>();
  private final String prefix;
  private final Catalog catalog;
  private final List<WorkerProcess> processes = new ArrayList<>();
  /** Debezium writing the workload's changes into Kafka, as JSON or as Avro. */
  interface Capture extends AutoCloseable {
    /** Records handed to Kafka so far. */
    long produced();
  }

  private Capture capture;
  /** The schema registry the Avro pipeline writes through, or null for JSON with schemas. */
  private final SchemaRegistryServer registry;
  private int logs;

  Pipeline(Path dir, String name, String schema) throws Exception {
    this(dir, name, schema, Lake.local(dir));
  }

  Pipeline(Path dir, String name, String schema, Lake lake) throws Exception {
    this(dir, name, schema, lake, null);
  }

  /**
   * The pipeline in Avro: Debezium writes through Apicurio's AvroConverter into the registry (the
   * Confluent-compatible wire format, the common production one), the sinks read {@code format: avro}.
   */
  static Pipeline avro(Path dir, String name, String schema, SchemaRegistryServer registry) throws Exception {
    return new Pipeline(dir, name, schema, Lake.local(dir), registry);
  }

  private Pipeline(Path dir, String name, String schema, Lake lake, SchemaRegistryServer registry) throws Exception {
    this(dir, name, lake, registry);
    add("orders", schema + ".orders", List.of("id"), 4, new TableSpec(lake.catalog(), "lake.orders", List.of(), List.of("region"), 2,
        WriteMode.EQUALITY_DELETES, Map.of(), Map.of()));
    add("accounts", schema + ".accounts", List.of("tenant", "id"), 3, new TableSpec(lake.catalog(), "lake.accounts", List.of(), List.of(), 3,
        WriteMode.POSITION_DELETES, Map.of(), Map.of()));
  }

  private Pipeline(Path dir, String name, Lake lake, SchemaRegistryServer registry) throws Exception {
    this.dir = dir;
    this.registry = registry;
    this.prefix = name;
    this.kafka = new EmbeddedKafka();
    this.catalog = CatalogLoader.load("floe", lake.catalog(), SecretResolver.fromEnvironment());
  }

  /**
   * One sink for the whole schema, as a user mirroring a database writes it: a topic pattern, and
   * a table name template that routes each table's topic to {@code lake.<table>}. Every entry of
   * {@link #sinks} then names one table of that sink and shares its config.
   */
  static Pipeline mirroring(Path dir, String name, String schema) throws Exception {
    Lake lake = Lake.local(dir);
    Pipeline p = new Pipeline(dir, name, lake, null);
    String dlq = "dlq." + name + ".mirror";
    p.kafka.createTopic(dlq, 1);
    SinkSpec spec = new SinkSpec(
        new SourceSpec(p.kafka.bootstrapServers(), List.of(), Pattern.quote(name + "." + schema + ".") + "[a-z]+", "floe-mirror", null, Map.of()),
        new TableSpec(lake.catalog(), "lake.{table}", List.of(), List.of(), 3, WriteMode.POSITION_DELETES, Map.of(), Map.of()),
        new CommitSpec("1s", 20_000, null), new DeadLetterSpec(dlq), null, COMPACTION);
    Path config = dir.resolve("mirror.yaml");
    Files.writeString(config, SinkConfigLoader.toYaml(spec));
    Map<String, List<String>> keys = Map.of("orders", List.of("id"), "accounts", List.of("tenant", "id"));
    Map<String, Integer> partitions = Map.of("orders", 4, "accounts", 3);
    for (String table : List.of("orders", "accounts")) {
      String topic = name + "." + schema + "." + table;
      p.kafka.createTopic(topic, partitions.get(table));
      p.sinks.put(table, new Sink(table, topic, partitions.get(table), spec.forTable("lake." + table), config, schema + "." + table, keys.get(table)));
    }
    return p;
  }

  private void add(String name, String sourceTable, List<String> key, int partitions, TableSpec table) throws Exception {
    String topic = prefix + "." + sourceTable;
    String dlq = "dlq." + prefix + "." + name;
    kafka.createTopic(topic, partitions);
    kafka.createTopic(dlq, 1);
    SourceSpec source = new SourceSpec(kafka.bootstrapServers(), List.of(topic), null, "floe-" + name, null, Map.of());
    SinkSpec spec = new SinkSpec(registry == null ? source : source.withAvro(SchemaRegistrySpec.at(registry.baseUrl())),
        table, new CommitSpec("1s", 20_000, null), new DeadLetterSpec(dlq), null, COMPACTION);
    Path config = dir.resolve(name + ".yaml");
    Files.writeString(config, SinkConfigLoader.toYaml(spec));
    sinks.put(name, new Sink(name, topic, partitions, spec, config, sourceTable, key));
  }

  /** Starts capturing the workload's tables: their snapshot, then every change. */
  void startCapture() {
    List<String> tables = sinks.values().stream().map(Sink::sourceTable).toList();
    if (registry == null) {
      PostgresCapture json = new PostgresCapture(Postgres.URL, Postgres.USER, Postgres.PASSWORD, String.join(",", tables), prefix,
          kafka.bootstrapServers());
      capture = new Capture() {
        @Override
        public long produced() {
          return json.produced();
        }

        @Override
        public void close() throws Exception {
          json.close();
        }
      };
    } else {
      capture = new AvroCapture(Postgres.URL, Postgres.USER, Postgres.PASSWORD, String.join(",", tables), prefix,
          kafka.bootstrapServers(), registry.v2Url(), DebeziumAvroCapture.WireFormat.CONFLUENT);
    }
  }

  WorkerProcess startWorker(String sink) {
    WorkerProcess w = WorkerProcess.start(dir.resolve("worker-" + sink + "-" + (++logs) + ".log"),
        "run", "--config", sinks.get(sink).config().toString(), "--port", "0", "--grace", "10");
    processes.add(w);
    return w;
  }

  /** {@code floe compact} once, as the operator's CronJob runs it; returns its exit code. */
  int compact(String sink) {
    WorkerProcess c = WorkerProcess.start(dir.resolve("compact-" + sink + "-" + (++logs) + ".log"),
        "compact", "--config", sinks.get(sink).config().toString(), "--json");
    return c.await(180);
  }

  Table table(String sink) {
    return catalog.loadTable(TableIdentifier.parse(sinks.get(sink).spec().table().name()));
  }

  /** Waits until Debezium has gone quiet and every sink's table holds every topic's end offsets. */
  void awaitCaughtUp(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    long lastProduced = -1;
    int quiet = 0;
    while (System.nanoTime() < deadline) {
      long produced = capture.produced();
      quiet = produced == lastProduced ? quiet + 1 : 0;
      lastProduced = produced;
      if (quiet >= 3 && behind().isEmpty()) {
        return;
      }
      Thread.sleep(1_000);
    }
    throw new AssertionError("not caught up within " + timeout + ": " + behind() + "; logs in " + dir + "\n" + logTails());
  }

  /** Partitions whose end offset the sink's table does not hold yet. */
  Map<TopicPartition, String> behind() throws Exception {
    Map<TopicPartition, String> out = new HashMap<>();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      for (Sink s : sinks.values()) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < s.partitions(); p++) {
          latest.put(new TopicPartition(s.topic(), p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> held = catalog.tableExists(TableIdentifier.parse(s.spec().table().name()))
            ? OffsetLedger.read(table(s.name()), s.spec().sinkId()).next() : Map.of();
        admin.listOffsets(latest).all().get().forEach((tp, info) -> {
          long h = held.getOrDefault(tp, 0L);
          if (info.offset() > 0 && h < info.offset()) {
            out.put(tp, h + "/" + info.offset());
          }
        });
      }
    }
    return out;
  }

  /** Every sink's differences from its source table; empty when the lake equals PostgreSQL. */
  List<String> differences() throws Exception {
    List<String> out = new ArrayList<>();
    for (Sink s : sinks.values()) {
      if (catalog.tableExists(TableIdentifier.parse(s.spec().table().name()))) {
        out.addAll(LakeChecker.differences(s.sourceTable(), s.key(), table(s.name()), 10));
      } else {
        out.add(s.name() + ": no lake table yet");
      }
    }
    return out;
  }

  /** The last lines of every worker's log, for a failure message. */
  String logTails() throws java.io.IOException {
    StringBuilder out = new StringBuilder();
    try (var files = Files.list(dir)) {
      for (Path log : files.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
        List<String> lines = Files.readAllLines(log);
        out.append("---- ").append(log.getFileName()).append('\n');
        lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(l -> out.append(l).append('\n'));
      }
    }
    return out.toString();
  }

  /** How many times the workers' logs say {@code text}, over all workers and restarts. */
  long logCount(String text) throws java.io.IOException {
    long count = 0;
    try (var files = Files.list(dir)) {
      for (Path log : files.filter(f -> f.getFileName().toString().startsWith("worker-")).toList()) {
        String content = Files.readString(log);
        for (int at = content.indexOf(text); at >= 0; at = content.indexOf(text, at + text.length())) {
          count++;
        }
      }
    }
    return count;
  }

  long captured() {
    return capture.produced();
  }

  /** Kills the workers and stops capturing: nothing reaches the lake any more. */
  void stopEverything() throws Exception {
    for (WorkerProcess p : processes) {
      if (p.alive()) {
        p.kill();
      }
    }
    if (capture != null) {
      capture.close();
      capture = null;
    }
  }

  @Override
  public void close() throws Exception {
    for (WorkerProcess p : processes) {
      if (p.alive()) {
        p.kill();
      }
    }
    if (capture != null) {
      capture.close();
    }
    kafka.close();
  }
}
