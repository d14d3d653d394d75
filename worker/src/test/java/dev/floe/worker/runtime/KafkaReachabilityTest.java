package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.quickstart.EmbeddedKafka;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker is ready only once it has reached Kafka and joined the group; a missing dead-letter topic stops it at startup. */
class KafkaReachabilityTest {
  @TempDir Path dir;

  @Test
  void aMissingDeadLetterTopicStopsTheWorkerAtStartupSayingHowToCreateIt() throws Exception {
    // given a sink naming a dead-letter topic nobody created, on a broker that would auto-create topics
    String topic = TestKafka.topic("orders", 2);
    String dlq = "dlq.missing." + UUID.randomUUID().toString().substring(0, 8);
    SinkSpec spec = KafkaRuntimeTest.sink(topic, new LocalWarehouse(dir), dlq);

    // when the worker starts
    RunningWorker w = RunningWorker.start(spec, new LocalWarehouse(dir));
    AtomicBoolean everReady = new AtomicBoolean();
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).dontCatchUncaughtExceptions().until(() -> {
      everReady.compareAndSet(false, w.runner.isReady());
      return !w.runner.isRunning();
    });

    // then it stops at once with the topic and the command to create it, was never ready, and created nothing
    assertThat(w.awaitFailure(Duration.ofSeconds(10))).isInstanceOf(DeadLetterTopicMissingException.class)
        .hasMessageContaining("the dead-letter topic " + dlq + " does not exist")
        .hasMessageContaining("kafka-topics.sh --bootstrap-server " + TestKafka.bootstrap() + " --create --topic " + dlq);
    assertThat(everReady).isFalse();
    try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", TestKafka.bootstrap()))) {
      assertThat(admin.listTopics().names().get()).doesNotContain(dlq);
    }
  }

  @Test
  void anUnreachableBrokerKeepsTheWorkerNotReadyAndIsCountedWhileItRetries() {
    // given a sink whose bootstrap servers nothing listens on
    SinkSpec base = KafkaRuntimeTest.sink("orders.nowhere", new LocalWarehouse(dir), "dlq.nowhere");
    SinkSpec spec = new SinkSpec(new SourceSpec("127.0.0.1:1", base.source().topics(), null, base.source().groupId(), null, Map.of()),
        base.table(), base.commit(), base.deadLetter(), null);

    // when it runs
    RunningWorker w = RunningWorker.start(spec, new LocalWarehouse(dir));

    // then it keeps trying, counted, never ready, reporting itself disconnected; and stops cleanly when asked
    await().atMost(Duration.ofSeconds(40)).until(() -> w.metrics.kafkaFailures() >= 2);
    assertThat(w.runner.isRunning()).isTrue();
    assertThat(w.runner.isReady()).isFalse();
    assertThat(w.metrics.scrape()).contains("floe_kafka_connected{sink=\"floe-orders\"} 0.0")
        .containsPattern("floe_kafka_failures_total\\{sink=\"floe-orders\"} [1-9]");
    w.stop();
  }

  @Test
  void aBrokerLostWhileRunningTurnsTheWorkerNotReadyAndIsCounted() throws Exception {
    // given a worker running against a broker of its own (the shared one must stay up), ready
    EmbeddedKafka broker = new EmbeddedKafka();
    RunningWorker w;
    try {
      broker.createTopic("orders.lost", 2);
      broker.createTopic("dlq.lost", 1);
      SinkSpec base = KafkaRuntimeTest.sink("orders.lost", new LocalWarehouse(dir), "dlq.lost");
      SinkSpec spec = new SinkSpec(new SourceSpec(broker.bootstrapServers(), base.source().topics(), null, base.source().groupId(), null,
          Map.of()), base.table(), base.commit(), base.deadLetter(), null);
      w = RunningWorker.start(spec, new LocalWarehouse(dir));
      await().atMost(Duration.ofSeconds(30)).until(w.runner::isReady);
      assertThat(w.metrics.kafkaFailures()).isZero();
    } finally {
      broker.close(); // when the broker goes away
    }

    // then the worker turns not ready, counts the failures, reports itself disconnected, and keeps running
    await().atMost(Duration.ofSeconds(30)).until(() -> !w.runner.isReady());
    await().atMost(Duration.ofSeconds(30)).until(() -> w.metrics.kafkaFailures() >= 2);
    assertThat(w.runner.isRunning()).isTrue();
    assertThat(w.metrics.scrape()).contains("floe_kafka_connected{sink=\"floe-orders\"} 0.0");
    w.stop();
  }

  @Test
  void aWorkerIsReadyOnceItHasJoinedTheGroupAndReportsKafkaConnected() {
    String topic = TestKafka.topic("orders", 2);
    SinkSpec spec = KafkaRuntimeTest.sink(topic, new LocalWarehouse(dir), TestKafka.topic("dlq", 1));
    RunningWorker w = RunningWorker.start(spec, new LocalWarehouse(dir));
    // (the consumer protocol may hand a member an empty assignment first, and the topic's partitions at a later heartbeat)
    await().atMost(Duration.ofSeconds(30)).until(() -> w.runner.isReady() && w.runner.owned().size() == 2);
    assertThat(w.metrics.scrape()).contains("floe_kafka_connected{sink=\"floe-orders\"} 1.0");
    w.stop();
  }
}
