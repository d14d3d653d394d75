package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.quickstart.EmbeddedKafka;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group protocol a worker joins with, against brokers configured as a production cluster may
 * be: one that keeps Kafka's initial rebalance delay (a worker woken from zero finds its group
 * empty), and one that refuses the consumer protocol (older than Kafka 4.0, or turned off).
 */
class GroupProtocolTest {
  /** Longer than Kafka's default (3 s), so that a join that waited it out cannot pass for one that did not. */
  private static final Duration INITIAL_REBALANCE_DELAY = Duration.ofSeconds(12);

  @TempDir Path dir;

  @Test
  void aWorkerJoiningAnEmptyGroupIsAssignedWithoutWaitingOutTheInitialRebalanceDelay() throws Exception {
    // given a broker that delays a classic group's first rebalance, and a backlog
    try (EmbeddedKafka broker = new EmbeddedKafka(Map.of("group.initial.rebalance.delay.ms", String.valueOf(INITIAL_REBALANCE_DELAY.toMillis())))) {
      Backlog backlog = Backlog.on(broker, "orders.delayed", dir);
      backlog.produce(1, 6);

      // when a worker with no group protocol configured starts
      long t0 = System.nanoTime();
      RunningWorker worker = RunningWorker.start(backlog.spec, backlog.warehouse);

      // then it owns both partitions well before the delay is up, and the table equals the source
      await().atMost(INITIAL_REBALANCE_DELAY.dividedBy(2)).until(() -> worker.runner.owned().size() == 2);
      System.out.printf("assigned %.1f s after the worker started%n", (System.nanoTime() - t0) / 1e9);
      backlog.assertAppliedExactly(worker, 6);
    }
  }

  @Test
  void aBrokerThatRefusesTheConsumerProtocolIsJoinedWithTheClassicOne() throws Exception {
    // given a broker with only the classic protocol enabled, and a backlog
    try (EmbeddedKafka broker = new EmbeddedKafka(Map.of("group.coordinator.rebalance.protocols", "classic"))) {
      Backlog backlog = Backlog.on(broker, "orders.classic", dir);
      backlog.produce(1, 6);

      // when a worker with no group protocol configured starts, and more arrives once it runs
      RunningWorker worker = RunningWorker.start(backlog.spec, backlog.warehouse);
      await().atMost(Duration.ofSeconds(30)).until(() -> worker.runner.owned().size() == 2 && worker.runner.isReady());
      backlog.produce(4, 9);

      // then it joined with the classic protocol, applied everything exactly once, and kept running
      backlog.assertAppliedExactly(worker, 12);
    }
  }

  @Test
  void aConsumerProtocolAskedForIsNotSwappedWhenTheBrokerRefusesIt() throws Exception {
    // given a broker with only the classic protocol enabled
    try (EmbeddedKafka broker = new EmbeddedKafka(Map.of("group.coordinator.rebalance.protocols", "classic"))) {
      LocalWarehouse warehouse = new LocalWarehouse(dir);
      String topic = "orders.asked";
      broker.createTopic(topic, 1);
      SinkSpec spec = sink(broker, topic, warehouse, Map.of("group.protocol", "consumer"));

      // when a worker whose source names the consumer protocol starts
      RunningWorker worker = RunningWorker.start(spec, warehouse);

      // then it stops with the broker's refusal instead of joining otherwise
      Throwable failure = worker.awaitFailure(Duration.ofSeconds(30));
      assertThat(failure).isNotNull().hasMessageContaining("group.protocol");
      assertThat(worker.runner.owned()).isEmpty();
    }
  }

  private static SinkSpec sink(EmbeddedKafka broker, String topic, LocalWarehouse warehouse, Map<String, String> settings) {
    SinkSpec base = KafkaRuntimeTest.sink(topic, warehouse, null);
    SourceSpec source = new SourceSpec(broker.bootstrapServers(), List.of(topic), null, "floe-protocol-" + topic, null, settings);
    return new SinkSpec(source, base.table(), base.commit(), null, null);
  }

  /** A topic of two partitions on a test's own broker, its sink (no group protocol named), and the model of what it holds. */
  private static final class Backlog {
    final LocalWarehouse warehouse;
    final SinkSpec spec;
    private final String bootstrapServers;
    private final OrdersModel model = new OrdersModel();
    private final OrdersSource source;

    private Backlog(EmbeddedKafka broker, String topic, Path dir) throws Exception {
      broker.createTopic(topic, 2);
      this.bootstrapServers = broker.bootstrapServers();
      this.warehouse = new LocalWarehouse(dir);
      this.spec = sink(broker, topic, warehouse, Map.of());
      this.source = new OrdersSource(topic);
    }

    static Backlog on(EmbeddedKafka broker, String topic, Path dir) throws Exception {
      return new Backlog(broker, topic, dir);
    }

    void produce(long fromKey, long toKey) {
      TestKafka.produce(bootstrapServers, source.records(GroupMembershipTest.upserts(fromKey, toKey), model));
    }

    /** Waits until the worker applied this many records, stops it, and checks it never failed and the table equals the source. */
    void assertAppliedExactly(RunningWorker worker, long records) {
      await().atMost(Duration.ofSeconds(30)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == records);
      assertThat(worker.runner.failure()).isNull();
      worker.stop();
      assertThat(ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table())).isEqualTo(model.expected());
    }
  }
}
