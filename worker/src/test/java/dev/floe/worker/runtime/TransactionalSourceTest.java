package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import dev.floe.worker.testing.TransactionalProducer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source topic written in transactions, as Debezium under Kafka Connect with exactly-once source
 * support (KIP-618) writes it: commit markers take offsets no consumer ever sees, and aborted
 * records must never reach the table.
 */
class TransactionalSourceTest {
  @TempDir Path dir;

  @Test
  void onlyCommittedTransactionsAreAppliedAndTheGroupLagReachesZeroPastTheCommitMarkers() throws Exception {
    java.time.Instant started = java.time.Instant.now();
    // given a transactional topic: a committed transaction, an aborted one, another committed one
    String topic = TestKafka.topic("orders", OrdersTable.PARTITIONS);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = KafkaRuntimeTest.sink(topic, warehouse, TestKafka.topic("dlq", 1));
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    try (TransactionalProducer tx = new TransactionalProducer(TestKafka.bootstrap())) {
      tx.commit(source.records(upserts(1, 40), model));
      tx.abort(new OrdersSource(topic).records(upserts(1_000, 1_020), new OrdersModel()));
      tx.commit(source.records(upserts(41, 80), model));

      // when a worker runs, and a transaction arrives while it runs
      RunningWorker w = RunningWorker.start(spec, warehouse);
      await().atMost(Duration.ofSeconds(60)).until(() -> actual(spec, warehouse).equals(model.expected()));
      tx.commit(source.records(upserts(20, 60), model));

      // then the table holds the committed rows only, and the group's lag reads 0, not one per marker
      await().atMost(Duration.ofSeconds(60)).until(() -> actual(spec, warehouse).equals(model.expected()));
      await().atMost(Duration.ofSeconds(30)).until(() -> groupLag(topic, spec.source().groupId()) == 0);
      w.stop();
      // and the group's offsets say when the worker last committed a snapshot (the operator shows it)
      assertThat(lastCommit(spec.source().groupId())).hasValueSatisfying(t -> assertThat(t).isBetween(started, java.time.Instant.now()));
    }
    assertThat(actual(spec, warehouse)).isEqualTo(model.expected()).doesNotContainKeys(1_000L, 1_010L);
  }

  private static Map<Long, Map<String, Object>> actual(SinkSpec spec, LocalWarehouse warehouse) {
    var table = new SinkEngine(spec, warehouse.catalog()).table();
    return table == null || table.currentSnapshot() == null ? Map.of() : ScriptPlayer.actual(table);
  }

  private static List<Step> upserts(long from, long to) {
    return LongStream.rangeClosed(from, to).mapToObj(id -> (Step) new Step.Upsert(id, Map.of("qty", (int) (id % 97)))).toList();
  }

  private static java.util.Optional<java.time.Instant> lastCommit(String group) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrap()))) {
      return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().values().stream()
          .flatMap(o -> CommitStamp.timeOf(o.metadata()).stream()).max(java.util.Comparator.naturalOrder());
    }
  }

  /** End offsets minus the group's committed offsets, as the operator and KEDA read the lag. */
  static long groupLag(String topic, String group) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrap()))) {
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      long lag = 0;
      for (int p = 0; p < OrdersTable.PARTITIONS; p++) {
        TopicPartition tp = new TopicPartition(topic, p);
        long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset();
        OffsetAndMetadata c = committed.get(tp);
        lag += end - (c == null ? 0 : c.offset());
      }
      return lag;
    }
  }
}
