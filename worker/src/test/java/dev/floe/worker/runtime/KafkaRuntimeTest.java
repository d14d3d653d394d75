package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker runtime against a real Kafka broker (KRaft, in this JVM). */
class KafkaRuntimeTest {
  @TempDir Path dir;

  @Test
  void aSecondWorkerJoiningAndLeavingMidStreamLosesAndDoublesNothing() {
    String topic = TestKafka.topic("orders", OrdersTable.PARTITIONS);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = sink(topic, warehouse, null);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    // No truncates here: a TRUNCATE is ordered across partitions by LSN exactly only for full row
    // images; merge rules straddling a truncate that arrives late from another partition cannot be
    // reconstructed (see README). Truncate ordering is covered by the engine's tests.
    // while both workers run, both partitions must get changes, or one worker has nothing to commit
    List<Step> steps;
    do {
      steps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(3_000).sample();
    } while (partitionsTouched(steps.subList(1_000, 2_000)) < OrdersTable.PARTITIONS);
    TestKafka.produce(source.records(steps.subList(0, 1_000), model));

    RunningWorker a = RunningWorker.start(spec, warehouse);
    await().atMost(Duration.ofSeconds(60)).until(() -> applied(spec, warehouse) > 0);
    RunningWorker b = RunningWorker.start(spec, warehouse); // joins: the group rebalances, B takes a partition
    await().atMost(Duration.ofSeconds(60)).until(() -> !b.runner.owned().isEmpty() && !a.runner.owned().isEmpty());
    for (int i = 1_000; i < 2_000; i += 100) {
      TestKafka.produce(source.records(steps.subList(i, i + 100), model));
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> b.committedBatches() > 0 && a.committedBatches() > 1);
    // each worker reports the lag of the partitions it owns, and only those: summed, they count every partition once
    await().atMost(Duration.ofSeconds(30)).until(() -> a.lagPartitions().equals(partitions(a.runner.owned()))
        && b.lagPartitions().equals(partitions(b.runner.owned())));
    assertThat(a.lagPartitions()).doesNotContainAnyElementsOf(b.lagPartitions());
    b.stop(); // leaves: the group rebalances again, A takes everything
    TestKafka.produce(source.records(steps.subList(2_000, 3_000), model));
    long end = source.nextOffsets().values().stream().mapToLong(Long::longValue).sum();
    await().atMost(Duration.ofSeconds(90)).until(() -> applied(spec, warehouse) == end);
    a.stop();

    SinkEngine check = new SinkEngine(spec, warehouse.catalog());
    assertThat(OffsetLedger.read(check.table(), spec.sinkId()).next()).isEqualTo(source.nextOffsets());
    assertThat(ScriptPlayer.actual(check.table())).isEqualTo(model.expected());
  }

  @Test
  void poisonRecordsLandInTheDeadLetterTopicWithTheirReasonsWhileTheRestIsApplied() {
    String topic = TestKafka.topic("orders", 2);
    String dlq = TestKafka.topic("dlq", 1);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = sink(topic, warehouse, dlq);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    RawRecord poison = new RawRecord(topic, 0, 0, "{\"id\":2}".getBytes(StandardCharsets.UTF_8), "not json".getBytes(StandardCharsets.UTF_8));
    TestKafka.produce(List.of(poison)); // partition 0, offset 0
    TestKafka.produce(source.records(List.of(new Step.Upsert(1, Map.of("qty", 1)), new Step.Upsert(2, Map.of("qty", 2))), model));

    RunningWorker w = RunningWorker.start(spec, warehouse);
    await().atMost(Duration.ofSeconds(60)).until(() -> applied(spec, warehouse) == 3);
    w.stop();

    List<ConsumerRecord<byte[], byte[]>> dead = TestKafka.readAll(dlq, 1, Duration.ofSeconds(30));
    assertThat(dead).hasSize(1);
    ConsumerRecord<byte[], byte[]> d = dead.get(0);
    assertThat(new String(d.value(), StandardCharsets.UTF_8)).isEqualTo("not json");
    assertThat(header(d, KafkaDeadLetters.REASON)).startsWith("value is not JSON");
    assertThat(header(d, KafkaDeadLetters.TOPIC)).isEqualTo(topic);
    assertThat(header(d, KafkaDeadLetters.PARTITION)).isEqualTo("0");
    assertThat(header(d, KafkaDeadLetters.OFFSET)).isEqualTo("0");
    assertThat(ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table())).containsOnlyKeys(1L, 2L);
    assertThat(w.metrics.scrape()).contains("floe_records_rejected_total{sink=\"floe-orders\",table=\"" + spec.table().name() + "\"} 1.0");
  }

  @Test
  void aRecordRejectedAtApplyTimeAfterItWasDecodedAheadLandsInTheDeadLetterTopicWithItsOwnBytes() {
    // given a batch where the second version of key 5 overflows its qty sum: it decodes (ahead of the
    // batch, releasing its bytes) and is rejected only when the batch folds
    String topic = TestKafka.topic("orders", OrdersTable.PARTITIONS);
    String dlq = TestKafka.topic("dlq", 1);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = sink(topic, warehouse, dlq);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    List<RawRecord> records = source.records(List.of(new Step.Upsert(1, Map.of("qty", 1)), new Step.Upsert(5, Map.of("qty", Integer.MAX_VALUE)),
        new Step.Upsert(5, Map.of("qty", 1)), new Step.Upsert(1, Map.of("qty", 2))), model);
    TestKafka.produce(records);

    // when a worker applies it
    RunningWorker w = RunningWorker.start(spec, warehouse);
    await().atMost(Duration.ofSeconds(60)).until(() -> applied(spec, warehouse) == records.size());
    w.stop();

    // then the dead-letter topic holds the overflowing record exactly as it was produced, and the rest is applied
    List<ConsumerRecord<byte[], byte[]>> dead = TestKafka.readAll(dlq, 1, Duration.ofSeconds(30));
    assertThat(dead).hasSize(1);
    ConsumerRecord<byte[], byte[]> d = dead.get(0);
    assertThat(header(d, KafkaDeadLetters.REASON)).startsWith("merge rule failed");
    assertThat(header(d, KafkaDeadLetters.PARTITION)).isEqualTo(String.valueOf(records.get(2).partition()));
    assertThat(header(d, KafkaDeadLetters.OFFSET)).isEqualTo(String.valueOf(records.get(2).offset()));
    assertThat(d.key()).isEqualTo(records.get(2).key());
    assertThat(d.value()).isEqualTo(records.get(2).value());
    Map<Long, Map<String, Object>> rows = ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table());
    assertThat(((Number) rows.get(1L).get("qty")).longValue()).isEqualTo(3L);
    assertThat(((Number) rows.get(5L).get("qty")).longValue()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void aRejectedRecordTheDeadLetterTopicRefusesStopsTheSinkInsteadOfLooping() {
    // given a dead-letter producer that refuses records over 2 KB (max.request.size), and a 4 KB poison record before a good one
    String topic = TestKafka.topic("orders", OrdersTable.PARTITIONS);
    String dlq = TestKafka.topic("dlq", 1);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec base = sink(topic, warehouse, dlq);
    SinkSpec spec = new SinkSpec(new SourceSpec(base.source().bootstrapServers(), base.source().topics(), null, base.source().groupId(),
        null, Map.of("max.request.size", "2048")), base.table(), base.commit(), base.deadLetter(), null);
    byte[] poison = ("not json " + "x".repeat(4096)).getBytes(StandardCharsets.UTF_8);
    TestKafka.produce(List.of(new RawRecord(topic, 0, 0, "{\"id\":2}".getBytes(StandardCharsets.UTF_8), poison)));
    OrdersSource source = new OrdersSource(topic);
    TestKafka.produce(source.records(List.of(new Step.Upsert(1, Map.of("qty", 1))), new OrdersModel()));

    // when the worker meets it
    RunningWorker w = RunningWorker.start(spec, warehouse);
    Throwable failure = w.awaitFailure(Duration.ofSeconds(60));

    // then it stops with a clear error naming the refusal, and commits nothing past the record it could not keep
    assertThat(failure).as("the worker stopped by itself").isNotNull()
        .isInstanceOf(dev.floe.worker.engine.DeadLetterRefusedException.class)
        .hasMessageContaining("the dead-letter topic " + dlq + " refused a rejected record")
        .hasMessageContaining("RecordTooLargeException");
    assertThat(new SinkEngine(spec, warehouse.catalog()).offsets().nextOffset(new TopicPartition(topic, 0))).isLessThanOrEqualTo(0L);
    assertThat(TestKafka.readAll(dlq, 1, Duration.ofSeconds(3))).isEmpty();
  }

  static SinkSpec sink(String topic, LocalWarehouse warehouse, String dlq) {
    return new SinkSpec(
        new SourceSpec(TestKafka.bootstrap(), List.of(topic), null, "floe-orders", null, Map.of()),
        new TableSpec(warehouse.spec(), "rt." + topic.replace('.', '_').replace('-', '_'), List.of(), List.of(), 2, null, OrdersTable.RULES, Map.of()),
        new CommitSpec("200ms", 300, null), dlq == null ? null : new DeadLetterSpec(dlq), null);
  }

  private static long partitionsTouched(List<Step> steps) {
    return steps.stream().mapMulti((Step s, java.util.function.Consumer<Long> ids) -> {
      if (s instanceof Step.Upsert u) {
        ids.accept(u.id());
      } else if (s instanceof Step.Delete d) {
        ids.accept(d.id());
      } else if (s instanceof Step.Rekey r) {
        ids.accept(r.id());
        ids.accept(r.newId());
      }
    }).map(OrdersTable::partitionOf).distinct().count();
  }

  private static Set<Integer> partitions(Set<TopicPartition> owned) {
    return owned.stream().map(TopicPartition::partition).collect(Collectors.toSet());
  }

  static long applied(SinkSpec spec, LocalWarehouse warehouse) {
    return new SinkEngine(spec, warehouse.catalog()).offsets().next().values().stream().mapToLong(Long::longValue).sum();
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    return new String(r.headers().lastHeader(key).value(), StandardCharsets.UTF_8);
  }
}
