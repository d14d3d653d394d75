package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.quickstart.OrdersStream;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code floe run}'s throughput on the quickstart's orders stream (events/s from the first poll to
 * lag 0, through a real broker) against the engine alone on the same events in batches of the same
 * size, in the same process: the ratio is what the Kafka runtime costs. A runner that applies each
 * batch before polling on (the single-threaded loop's order) is the baseline of the overlap.
 */
class RunThroughputBenchmark {
  private static final int BATCH = Integer.getInteger("floe.bench.batch", 20_000);

  @TempDir Path dir;

  @Test
  void smoke() {
    run(10_000, 1_000, 1);
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.long", matches = "true")
  void fullSize() {
    int events = Integer.getInteger("floe.bench.events", 200_000);
    System.out.println(run(events, events / 10, Integer.getInteger("floe.bench.rounds", 2)));
  }

  private String run(int events, int keys, int rounds) {
    String topic = TestKafka.topic("shop.public.orders", 4);
    List<RawRecord> records = new OrdersStream(topic, keys, 4, 11).next(events);
    TestKafka.produce(records);
    LocalWarehouse warehouse = new LocalWarehouse(dir);

    // the baseline and the overlap in turns (the first pair also warms the JIT up): the last pair counts
    Run serial = null;
    Run overlapped = null;
    for (int round = 1; round <= rounds; round++) {
      serial = run(topic, warehouse, "bench.run_serial_" + round, records.size(), false);
      overlapped = run(topic, warehouse, "bench.run_orders_" + round, records.size(), true);
      System.out.printf(Locale.ROOT, "round %d: poll-then-apply %.2f s, overlapped %.2f s%n", round, serial.seconds, overlapped.seconds);
    }

    SinkEngine alone = new SinkEngine(sink(topic, warehouse, "bench.engine_orders"), warehouse.catalog());
    long t1 = System.nanoTime();
    for (int i = 0; i < records.size(); i += BATCH) {
      alone.apply(records.subList(i, Math.min(records.size(), i + BATCH)), DeadLetters.DISCARD);
    }
    double engineSeconds = (System.nanoTime() - t1) / 1e9;
    assertThat(LocalWarehouse.rows(alone.table())).hasSameSizeAs(LocalWarehouse.rows(overlapped.engine.table()));
    assertThat(LocalWarehouse.rows(serial.engine.table())).hasSameSizeAs(LocalWarehouse.rows(overlapped.engine.table()));
    return String.format(Locale.ROOT,
        "floe run: %,d events (%,d records) first poll to lag 0 in %.2f s = %,.0f events/s (poll-then-apply baseline: %.2f s = %,.0f events/s,"
            + " overlap/baseline %.2f); engine alone %.2f s = %,.0f events/s; ratio run/engine %.2f (baseline %.2f)",
        events, records.size(), overlapped.seconds, events / overlapped.seconds, serial.seconds, events / serial.seconds,
        serial.seconds / overlapped.seconds, engineSeconds, events / engineSeconds,
        engineSeconds / overlapped.seconds, engineSeconds / serial.seconds);
  }

  private record Run(SinkEngine engine, double seconds) {}

  /** A worker from the first poll to lag 0 on the whole topic, overlapping batches or not. */
  private static Run run(String topic, LocalWarehouse warehouse, String table, long records, boolean overlap) {
    SinkSpec spec = sink(topic, warehouse, table);
    SinkEngine engine = new SinkEngine(spec, warehouse.catalog());
    SinkEngine probe = new SinkEngine(spec, warehouse.catalog()); // an engine is one thread's
    SinkRunner runner = new SinkRunner(spec, engine, new WorkerMetrics(spec.sinkId()), SecretResolver.fromEnvironment());
    if (!overlap) {
      runner.withoutOverlap();
    }
    Thread worker = new Thread(runner, "worker");
    long t0 = System.nanoTime();
    worker.start();
    await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(100))
        .until(() -> probe.offsets().next().values().stream().mapToLong(Long::longValue).sum() == records);
    double seconds = (System.nanoTime() - t0) / 1e9;
    runner.stop();
    join(worker);
    runner.close();
    return new Run(engine, seconds);
  }

  private static SinkSpec sink(String topic, LocalWarehouse warehouse, String table) {
    return new SinkSpec(new SourceSpec(TestKafka.bootstrap(), List.of(topic), null, "floe-bench-" + table, null, Map.of()),
        new TableSpec(warehouse.spec(), table, List.of(), List.of(), 2, null, Map.of(), Map.of()),
        Boolean.getBoolean("floe.bench.defaults") ? CommitSpec.DEFAULTS : new CommitSpec("1s", BATCH, null), null, null);
  }

  private static void join(Thread t) {
    try {
      t.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
