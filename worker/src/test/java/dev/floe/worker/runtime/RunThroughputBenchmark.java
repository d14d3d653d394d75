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
 * size, in the same process: the ratio is what the Kafka runtime costs.
 */
class RunThroughputBenchmark {
  private static final int BATCH = 20_000;

  @TempDir Path dir;

  @Test
  void smoke() {
    run(10_000, 1_000);
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.long", matches = "true")
  void fullSize() {
    System.out.println(run(Integer.getInteger("floe.bench.events", 200_000), 20_000));
  }

  private String run(int events, int keys) {
    String topic = TestKafka.topic("shop.public.orders", 4);
    List<RawRecord> records = new OrdersStream(topic, keys, 4, 11).next(events);
    TestKafka.produce(records);
    LocalWarehouse warehouse = new LocalWarehouse(dir);

    SinkSpec spec = sink(topic, warehouse, "bench.run_orders");
    WorkerMetrics metrics = new WorkerMetrics(spec.sinkId());
    SinkEngine engine = new SinkEngine(spec, warehouse.catalog());
    SinkRunner runner = new SinkRunner(spec, engine, metrics, SecretResolver.fromEnvironment());
    Thread worker = new Thread(runner, "worker");
    long t0 = System.nanoTime();
    worker.start();
    await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(100))
        .until(() -> engine.offsets().next().values().stream().mapToLong(Long::longValue).sum() == records.size());
    double runSeconds = (System.nanoTime() - t0) / 1e9;
    runner.stop();
    join(worker);
    runner.close();

    SinkEngine alone = new SinkEngine(sink(topic, warehouse, "bench.engine_orders"), warehouse.catalog());
    long t1 = System.nanoTime();
    for (int i = 0; i < records.size(); i += BATCH) {
      alone.apply(records.subList(i, Math.min(records.size(), i + BATCH)), DeadLetters.DISCARD);
    }
    double engineSeconds = (System.nanoTime() - t1) / 1e9;
    assertThat(LocalWarehouse.rows(alone.table())).hasSameSizeAs(LocalWarehouse.rows(engine.table()));
    return String.format(Locale.ROOT,
        "floe run: %,d events (%,d records) first poll to lag 0 in %.2f s = %,.0f events/s; engine alone %.2f s = %,.0f events/s; ratio run/engine %.2f",
        events, records.size(), runSeconds, events / runSeconds, engineSeconds, events / engineSeconds, (events / runSeconds) / (events / engineSeconds));
  }

  private static SinkSpec sink(String topic, LocalWarehouse warehouse, String table) {
    return new SinkSpec(new SourceSpec(TestKafka.bootstrap(), List.of(topic), null, "floe-bench-" + table, null, Map.of()),
        new TableSpec(warehouse.spec(), table, List.of(), List.of(), 2, null, Map.of(), Map.of()),
        new CommitSpec("1s", BATCH, null), null, null);
  }

  private static void join(Thread t) {
    try {
      t.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
