package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.StartFrom;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the table's offsets and the log disagree (retention deleted records the table never saw,
 * the topic was re-created, the table was dropped under a group that read the topic), the worker
 * stops naming the partitions and the remedy, instead of silently skipping or re-reading.
 */
class ResumePositionTest {
  @TempDir Path dir;

  @Test
  void tableOffsetsOlderThanTheLogStartStopTheWorkerAndTheTableKeepsWhatItHad() throws Exception {
    // given a table that applied offsets 0..1 of both partitions, then records 2..3 of partition 0 of which retention deleted 2
    String topic = TestKafka.topic("orders", 2);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = KafkaRuntimeTest.sink(topic, warehouse, null);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    applyAll(spec, warehouse, source, model, upserts(1, 4));
    Map<Long, Map<String, Object>> before = model.expected();
    TestKafka.produce(source.records(upserts(5, 8), model));
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrap()))) {
      admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(3))).all().get();
    }

    // when a worker resumes the table
    Throwable failure = RunningWorker.start(spec, warehouse).awaitFailure(Duration.ofSeconds(45));

    // then it stops naming the partition, the table's offset, the log's range and what to do; the table is untouched
    assertThat(failure).isInstanceOf(ResumeRefusedException.class)
        .hasMessageContaining(topic + "-0: the table holds offset 2, but the log holds only [3, 4)")
        .hasMessageContaining("re-snapshot").hasMessageNotContaining(topic + "-1");
    assertThat(((ResumeRefusedException) failure).kind()).isEqualTo(StartPosition.Kind.OUT_OF_RANGE);
    assertThat(table(spec, warehouse)).isEqualTo(before);
  }

  @Test
  void tableOffsetsBeyondTheLogEndOfARecreatedTopicStopTheWorker() throws Exception {
    // given a table that applied offsets 0..1 of both partitions, and the topic then deleted and re-created with one record
    String topic = TestKafka.topic("orders", 2);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = KafkaRuntimeTest.sink(topic, warehouse, null);
    OrdersModel model = new OrdersModel();
    applyAll(spec, warehouse, new OrdersSource(topic), model, upserts(1, 4));
    Map<Long, Map<String, Object>> before = model.expected();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrap()))) {
      admin.deleteTopics(List.of(topic)).all().get();
    }
    // topic deletion completes asynchronously: create again until the broker accepts it
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> TestKafka.topicNamed(topic, 2) != null);
    TestKafka.produce(new OrdersSource(topic).records(upserts(2, 2), new OrdersModel()));

    Throwable failure = RunningWorker.start(spec, warehouse).awaitFailure(Duration.ofSeconds(45));

    assertThat(failure).isInstanceOf(ResumeRefusedException.class)
        .hasMessageContaining(topic + "-0: the table holds offset 2, but the log ends at 1: the topic was re-created or truncated")
        .hasMessageContaining(topic + "-1: the table holds offset 2, but the log ends at 0")
        .hasMessageContaining("re-snapshot");
    assertThat(table(spec, warehouse)).isEqualTo(before);
  }

  @Test
  void aTopicRecreatedUnderARunningWorkerStopsItInsteadOfSilentlyResetting() throws Exception {
    // given a worker that applied offsets 0..1 of both partitions and keeps running
    String topic = TestKafka.topic("orders", 2);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = KafkaRuntimeTest.sink(topic, warehouse, null);
    OrdersModel model = new OrdersModel();
    TestKafka.produce(new OrdersSource(topic).records(upserts(1, 4), model));
    Map<Long, Map<String, Object>> before = model.expected();
    RunningWorker w = RunningWorker.start(spec, warehouse);
    await().atMost(Duration.ofSeconds(45)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 4);

    // when the topic is deleted and re-created under it, with new records at offsets the table already holds
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrap()))) {
      admin.deleteTopics(List.of(topic)).all().get();
    }
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> TestKafka.topicNamed(topic, 2) != null);
    TestKafka.produce(new OrdersSource(topic).records(upserts(2, 2), new OrdersModel()));

    // then it stops naming both partitions (never reading the new offset 0 as if it were new, nor skipping ahead)
    Throwable failure = w.awaitFailure(Duration.ofSeconds(45));
    assertThat(failure).isInstanceOf(ResumeRefusedException.class)
        .hasMessageContaining(topic + "-0: the table holds offset").hasMessageContaining(topic + "-1: the table holds offset")
        .hasMessageContaining("re-snapshot");
    assertThat(table(spec, warehouse)).isEqualTo(before);
  }

  @Test
  void aDroppedTableUnderAGroupThatReadTheTopicIsRefusedUntilStartFromSaysWhere() {
    // given a group that read everything into a table, and the table then dropped
    String topic = TestKafka.topic("orders", 2);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = KafkaRuntimeTest.sink(topic, warehouse, null);
    OrdersModel model = new OrdersModel();
    applyAll(spec, warehouse, new OrdersSource(topic), model, upserts(1, 6));
    warehouse.catalog().dropTable(TableIdentifier.parse(spec.table().name()), true);

    // when a worker starts without source.startFrom, it refuses, explaining both choices
    Throwable failure = RunningWorker.start(spec, warehouse).awaitFailure(Duration.ofSeconds(45));
    assertThat(failure).isInstanceOf(ResumeRefusedException.class)
        .hasMessageContaining("holds no offsets for")
        .hasMessageContaining(topic + "-0 (the group committed 3)")
        .hasMessageContaining("source.startFrom: earliest").hasMessageContaining("or group");
    assertThat(warehouse.catalog().tableExists(TableIdentifier.parse(spec.table().name()))).isFalse();

    // and with startFrom: earliest it rebuilds the table from everything Kafka holds: nothing lost, nothing doubled
    SinkSpec earliest = new SinkSpec(spec.source().withStartFrom(StartFrom.EARLIEST), spec.table(), spec.commit(), null, null);
    RunningWorker w = RunningWorker.start(earliest, warehouse);
    await().atMost(Duration.ofSeconds(45)).until(() -> warehouse.catalog().tableExists(TableIdentifier.parse(spec.table().name()))
        && KafkaRuntimeTest.applied(spec, warehouse) == 6);
    w.stop();
    assertThat(table(spec, warehouse)).isEqualTo(model.expected());
  }

  private static void applyAll(SinkSpec spec, LocalWarehouse warehouse, OrdersSource source, OrdersModel model, List<Step> steps) {
    TestKafka.produce(source.records(steps, model));
    long end = source.nextOffsets().values().stream().mapToLong(Long::longValue).sum();
    RunningWorker w = RunningWorker.start(spec, warehouse);
    await().atMost(Duration.ofSeconds(45)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == end);
    w.stop(); // also commits the group's offsets
  }

  private static List<Step> upserts(long from, long to) {
    return LongStream.rangeClosed(from, to).mapToObj(id -> (Step) new Step.Upsert(id, Map.of("qty", (int) id))).toList();
  }

  private static Map<Long, Map<String, Object>> table(SinkSpec spec, LocalWarehouse warehouse) {
    return ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table());
  }
}
