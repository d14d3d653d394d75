package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
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
import java.util.UUID;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Static membership against a real broker, with the default 45 s session timeout: a worker
 * restarted under its instance id after a crash takes its partitions back at once, and a worker
 * that stops gracefully hands its partitions over at once; neither waits for the session to expire.
 * Under either group protocol.
 */
class GroupMembershipTest {
  private static final Duration WELL_BEFORE_SESSION_TIMEOUT = Duration.ofSeconds(15);

  @TempDir Path dir;

  @ParameterizedTest(name = "{0} protocol")
  @ValueSource(strings = {"classic", "consumer"})
  void aWorkerRestartedAfterACrashUnderItsInstanceIdGetsItsPartitionsBackAtOnce(String protocol) {
    // given worker pod-0 owning both partitions, then "killed": its loop ends, its consumer is never closed (no leave)
    String topic = TestKafka.topic("orders", 2);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = sink(topic, warehouse, protocol);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    TestKafka.produce(source.records(upserts(1, 4), model));
    RunningWorker crashed = RunningWorker.start(spec, warehouse, "pod-0");
    await().atMost(Duration.ofSeconds(30)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 4);
    crashed.abandon();
    TestKafka.produce(source.records(upserts(3, 8), model));

    // when the container restarts under the same pod name
    long t0 = System.nanoTime();
    RunningWorker restarted = RunningWorker.start(spec, warehouse, "pod-0");

    // then it owns both partitions again well before the session of the dead member would expire, and catches up exactly
    await().atMost(WELL_BEFORE_SESSION_TIMEOUT).until(() -> restarted.runner.owned().size() == 2 && restarted.runner.isReady());
    System.out.printf("restarted static member owned its partitions after %.1f s%n", (System.nanoTime() - t0) / 1e9);
    await().atMost(Duration.ofSeconds(30)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 10);
    restarted.stop();
    crashed.runner.close(); // fenced by its successor: releasing the client changes nothing in the group
    assertThat(ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table())).isEqualTo(model.expected());
  }

  @ParameterizedTest(name = "{0} protocol")
  @ValueSource(strings = {"classic", "consumer"})
  void aWorkerStoppedGracefullyHandsItsPartitionsToAnotherAtOnce(String protocol) {
    // given two static members sharing the two partitions
    String topic = TestKafka.topic("orders", 2);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = sink(topic, warehouse, protocol);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    TestKafka.produce(source.records(upserts(1, 4), model));
    RunningWorker a = RunningWorker.start(spec, warehouse, "pod-0");
    await().atMost(Duration.ofSeconds(30)).until(() -> a.runner.owned().size() == 2);
    RunningWorker b = RunningWorker.start(spec, warehouse, "pod-1");
    await().atMost(Duration.ofSeconds(30)).until(() -> a.runner.owned().size() == 1 && b.runner.owned().size() == 1);

    // when one stops as on SIGTERM (a scale-down)
    long t0 = System.nanoTime();
    b.stop();

    // then the other owns both partitions well before the session timeout, and applies what follows exactly
    await().atMost(WELL_BEFORE_SESSION_TIMEOUT).until(() -> a.runner.owned().size() == 2);
    System.out.printf("partitions handed over %.1f s after a graceful stop%n", (System.nanoTime() - t0) / 1e9);
    TestKafka.produce(source.records(upserts(3, 8), model));
    await().atMost(Duration.ofSeconds(30)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 10);
    a.stop();
    assertThat(ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table())).isEqualTo(model.expected());
  }

  /**
   * A sink with a group of its own (static members of other tests stay out) and Kafka's default
   * session timeout: spelled out for the classic protocol (which that setting chooses), the brokers'
   * {@code group.consumer.session.timeout.ms} for the consumer protocol (the worker's default).
   */
  private static SinkSpec sink(String topic, LocalWarehouse warehouse, String protocol) {
    SinkSpec base = KafkaRuntimeTest.sink(topic, warehouse, null);
    SourceSpec source = new SourceSpec(base.source().bootstrapServers(), base.source().topics(), null,
        "floe-members-" + UUID.randomUUID().toString().substring(0, 8), null,
        protocol.equals("classic") ? Map.of("session.timeout.ms", "45000") : Map.of());
    return new SinkSpec(source, base.table(), base.commit(), null, null);
  }

  /** Upserts of the keys {@code from} to {@code to}, each with its id as quantity. */
  static List<Step> upserts(long from, long to) {
    return LongStream.rangeClosed(from, to).mapToObj(id -> (Step) new Step.Upsert(id, Map.of("qty", (int) id))).toList();
  }
}
