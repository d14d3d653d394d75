package dev.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.runtime.KafkaDeadLetters;
import dev.floe.worker.testing.Postgres;
import dev.floe.worker.testing.SchemaRegistryServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL → Debezium → Kafka → {@code floe run} → Iceberg, and the lake equals PostgreSQL
 * afterwards, row by row, under one fault per scenario. {@code -Dfloe.long=true} runs a soak: ten
 * times the statements and more faults. {@code -Dfloe.e2e.seed=N} replays a run.
 */
class PipelineTest {
  static final boolean LONG = Boolean.getBoolean("floe.long");
  static final int STATEMENTS = LONG ? 12_000 : 1_200;
  static final int KEYS = LONG ? 4_000 : 400;
  static final Duration CATCH_UP = Duration.ofSeconds(LONG ? 600 : 120);

  @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS) Path dir;
  long seed;
  String scenario;

  @BeforeEach
  void given(TestInfo test) {
    Postgres.assumeAvailable();
    seed = Long.getLong("floe.e2e.seed", System.nanoTime());
    scenario = test.getTestMethod().orElseThrow().getName().replaceAll("[^A-Za-z]", "").toLowerCase().substring(0, 12);
    System.out.printf("e2e %s: seed %d, %d statements over %d keys%n", scenario, seed, STATEMENTS, KEYS);
  }

  @Test
  void steadyIngestOfEveryKindOfChangeKeepsTheLakeEqualToPostgres() throws Exception {
    Workload workload = workload();
    try (Pipeline pipeline = new Pipeline(dir, "e2e" + scenario, schema())) {
      pipeline.startCapture();
      pipeline.sinks.keySet().forEach(pipeline::startWorker);
      workload.run(STATEMENTS / 2);
      workload.truncateAccounts();
      workload.run(STATEMENTS / 2);

      thenTheLakeEqualsTheSource(pipeline, 0);

      // and the checker does see a difference: a change the pipeline never captures
      pipeline.stopEverything();
      Postgres.execute("UPDATE " + schema() + ".orders SET qty = coalesce(qty, 0) + 1 WHERE id = (SELECT min(id) FROM " + schema() + ".orders)");
      assertThat(pipeline.differences()).anyMatch(d -> d.contains("differs") && d.contains("qty: source="));
    }
  }

  @Test
  void workersKilledWithSigkillAtRandomInstantsLoseAndDoubleNothing() throws Exception {
    Workload workload = workload();
    Random faults = new Random(seed);
    int kills = LONG ? 20 : 3;
    try (Pipeline pipeline = new Pipeline(dir, "e2e" + scenario, schema())) {
      pipeline.startCapture();
      Map<String, WorkerProcess> workers = new java.util.HashMap<>();
      pipeline.sinks.keySet().forEach(s -> workers.put(s, pipeline.startWorker(s)));
      for (int k = 0; k < kills; k++) {
        workload.run(STATEMENTS / kills);
        Thread.sleep(faults.nextInt(2_500)); // a random instant: polling, mid-batch, or mid-commit
        String victim = faults.nextBoolean() ? "orders" : "accounts";
        workers.get(victim).kill();
        workers.put(victim, pipeline.startWorker(victim));
      }
      thenTheLakeEqualsTheSource(pipeline, kills);
    }
  }

  @Test
  void avroThroughASchemaRegistryKeepsTheLakeEqualToPostgresThroughSigkillsATruncateToastAndAnAddedColumn() throws Exception {
    // given Debezium writing Avro through Apicurio's converter into a registry, and sinks reading format: avro
    Workload workload = workload();
    Random faults = new Random(seed);
    int kills = 2;
    try (SchemaRegistryServer registry = SchemaRegistryServer.start();
        Pipeline pipeline = Pipeline.avro(dir, "e2e" + scenario, schema(), registry)) {
      System.out.printf("e2e %s: registry %s (%s)%n", scenario, registry.baseUrl(), registry.real() ? "real, FLOE_SCHEMA_REGISTRY_URL" : "in-process stand-in");
      pipeline.startCapture();
      Map<String, WorkerProcess> workers = new java.util.HashMap<>();
      pipeline.sinks.keySet().forEach(s -> workers.put(s, pipeline.startWorker(s)));

      // when the workload runs (TOAST placeholders, key moves, ADD COLUMN: a new schema id), with a truncate and SIGKILLs between
      for (int k = 0; k < kills; k++) {
        workload.run(STATEMENTS / (kills + 1));
        Thread.sleep(faults.nextInt(2_500));
        String victim = faults.nextBoolean() ? "orders" : "accounts";
        workers.get(victim).kill();
        workers.put(victim, pipeline.startWorker(victim));
      }
      workload.truncateAccounts();
      workload.run(STATEMENTS / (kills + 1));

      // then the lake equals PostgreSQL row by row, and nothing went to the dead-letter topics
      thenTheLakeEqualsTheSource(pipeline, kills);
      for (Pipeline.Sink s : pipeline.sinks.values()) {
        assertThat(readAll(pipeline, s.spec().deadLetter().topic())).as("dead letters of %s", s.name()).isEmpty();
      }
    }
  }

  @Test
  void twoWorkersOnOneSinkShareItsPartitionsAndOneLeavingLosesAndDoublesNothing() throws Exception {
    Workload workload = workload();
    try (Pipeline pipeline = new Pipeline(dir, "e2e" + scenario, schema())) {
      pipeline.startCapture();
      WorkerProcess first = pipeline.startWorker("orders");
      WorkerProcess second = pipeline.startWorker("orders");
      pipeline.startWorker("accounts");
      workload.run(STATEMENTS / 2);
      second.awaitLog("assigned", Duration.ofSeconds(60)); // it joined the group and took partitions
      first.awaitLog("assigned", Duration.ofSeconds(60));
      assertThat(second.stop()).as("a worker leaving on SIGTERM exits 0").isZero(); // the group rebalances onto the first
      workload.run(STATEMENTS / 2);
      assertThat(first.alive()).isTrue();

      thenTheLakeEqualsTheSource(pipeline, 1);
    }
  }

  @Test
  void compactionRunningBesideLiveIngestKeepsTheLakeEqualToPostgres() throws Exception {
    Workload workload = workload();
    try (Pipeline pipeline = new Pipeline(dir, "e2e" + scenario, schema())) {
      pipeline.startCapture();
      pipeline.sinks.keySet().forEach(pipeline::startWorker);
      AtomicBoolean ingesting = new AtomicBoolean(true);
      AtomicInteger compactions = new AtomicInteger();
      List<Integer> exitCodes = new java.util.concurrent.CopyOnWriteArrayList<>();
      CompletableFuture<Void> compactor = CompletableFuture.runAsync(() -> {
        while (ingesting.get()) {
          for (String sink : pipeline.sinks.keySet()) {
            exitCodes.add(pipeline.compact(sink));
            compactions.incrementAndGet();
          }
        }
      });
      workload.run(STATEMENTS / 2);
      workload.truncateAccounts();
      workload.run(STATEMENTS / 2);
      pipeline.awaitCaughtUp(CATCH_UP);
      ingesting.set(false);
      compactor.join();

      assertThat(exitCodes).as("0 done, 3 partial (a group lost a race and is retried next run)").allMatch(c -> c == 0 || c == 3);
      assertThat(compactions.get()).isPositive();
      thenTheLakeEqualsTheSource(pipeline, compactions.get());
      assertThat(pipeline.compact("orders")).isZero(); // and once more at rest, to nothing left behind
      thenTheLakeEqualsTheSource(pipeline, compactions.get() + 1);
    }
  }

  @Test
  void poisonMessagesGoToTheDeadLetterTopicWithTheirReasonAndTheRestIsApplied() throws Exception {
    Workload workload = workload();
    int poison = 7;
    try (Pipeline pipeline = new Pipeline(dir, "e2e" + scenario, schema())) {
      pipeline.startCapture();
      pipeline.sinks.keySet().forEach(pipeline::startWorker);
      Pipeline.Sink orders = pipeline.sinks.get("orders");
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", pipeline.kafka.bootstrapServers()),
          new ByteArraySerializer(), new ByteArraySerializer())) {
        for (int i = 0; i < poison; i++) {
          workload.run(STATEMENTS / poison);
          producer.send(new ProducerRecord<>(orders.topic(), i % orders.partitions(), ("{\"id\":" + i + "}").getBytes(StandardCharsets.UTF_8),
              ("{not json " + i).getBytes(StandardCharsets.UTF_8))).get();
        }
      }
      thenTheLakeEqualsTheSource(pipeline, poison);

      List<ConsumerRecord<byte[], byte[]>> dead = readAll(pipeline, orders.spec().deadLetter().topic());
      assertThat(dead).hasSize(poison);
      assertThat(dead).allSatisfy(d -> {
        assertThat(new String(d.value(), StandardCharsets.UTF_8)).startsWith("{not json");
        assertThat(new String(d.headers().lastHeader(KafkaDeadLetters.REASON).value(), StandardCharsets.UTF_8)).isNotBlank();
      });
    }
  }

  @Test
  void oneSinkMirrorsEveryTableOfTheSchemaThroughATableNameTemplate() throws Exception {
    Workload workload = workload();
    try (Pipeline pipeline = Pipeline.mirroring(dir, "e2e" + scenario, schema())) {
      pipeline.startCapture();
      WorkerProcess worker = pipeline.startWorker("orders"); // the schema's one sink: it writes both tables
      workload.run(STATEMENTS / 2);
      worker.kill();
      pipeline.startWorker("orders");
      workload.truncateAccounts();
      workload.run(STATEMENTS / 2);

      thenTheLakeEqualsTheSource(pipeline, 1);
      assertThat(pipeline.compact("orders")).as("floe compact on the sink compacts each of its tables").isZero();
      thenTheLakeEqualsTheSource(pipeline, 1);
    }
  }

  /** What a worker logs once when its commits start failing. */
  private static final String BACKING_OFF = "failing, retrying with backoff";

  @Test
  void outagesOfTheRestCatalogAndOfS3AreRiddenOutAndLoseNothing() throws Exception {
    Workload workload = workload();
    int outages = LONG ? 6 : 2;
    try (RestS3Lake lake = new RestS3Lake(dir); Pipeline pipeline = new Pipeline(dir, "e2e" + scenario, schema(), lake)) {
      pipeline.startCapture();
      pipeline.sinks.keySet().forEach(pipeline::startWorker);
      workload.run(STATEMENTS / (outages + 1));
      for (int i = 0; i < outages; i++) {
        boolean catalog = i % 2 == 0;
        long outagesMet = pipeline.logCount(BACKING_OFF);
        if (catalog) {
          lake.stopCatalog();
        } else {
          lake.stopS3();
        }
        workload.run(STATEMENTS / (outages + 1)); // changes keep coming while the lake is away
        // the workers' commits fail and back off meanwhile (each outage is logged once, when it starts)
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
            .until(() -> pipeline.logCount(BACKING_OFF) > outagesMet);
        if (catalog) {
          lake.startCatalog();
        } else {
          lake.startS3();
        }
      }
      thenTheLakeEqualsTheSource(pipeline, outages);
    }
  }

  // ---- steps

  private Workload workload() throws Exception {
    Workload w = new Workload(schema(), seed, KEYS);
    w.create();
    w.run(100); // rows that exist before capture starts: they arrive through Debezium's snapshot
    return w;
  }

  private String schema() {
    return "e2e_" + scenario;
  }

  private void thenTheLakeEqualsTheSource(Pipeline pipeline, int faults) throws Exception {
    long t0 = System.nanoTime();
    pipeline.awaitCaughtUp(CATCH_UP);
    List<String> last = new ArrayList<>();
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(2)).until(() -> {
      last.clear();
      last.addAll(pipeline.differences());
      return last.isEmpty();
    });
    StringBuilder rows = new StringBuilder();
    for (Pipeline.Sink s : pipeline.sinks.values()) {
      rows.append(' ').append(s.name()).append('=').append(LakeChecker.source(s.sourceTable(), s.key()).rows().size());
    }
    System.out.printf("e2e %s: %,d change events captured, %d faults, rows%s, 0 differences (%.1f s to converge)%n",
        scenario, pipeline.captured(), faults, rows, (System.nanoTime() - t0) / 1e9);
  }

  private static List<ConsumerRecord<byte[], byte[]>> readAll(Pipeline pipeline, String topic) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", pipeline.kafka.bootstrapServers(),
        "auto.offset.reset", "earliest"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      while (consumer.position(tp) < end) {
        consumer.poll(Duration.ofMillis(500)).forEach(out::add);
      }
    }
    return out;
  }
}
