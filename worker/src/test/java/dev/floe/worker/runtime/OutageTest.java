package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CatalogType;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.S3Endpoint;
import dev.floe.worker.testing.TestKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An S3 outage mid-stream: the worker reports not-ready, retries with backoff, and catches up losing nothing. */
class OutageTest {
  @TempDir Path dir;

  @Test
  void theWorkerRidesOutAnS3OutageAndCatchesUpExactly() throws Exception {
    Files.createDirectories(dir.resolve("s3"));
    try (S3Endpoint s3 = new S3Endpoint(dir.resolve("s3"), "lake")) {
      Map<String, String> props = new HashMap<>(s3.fileIoProperties());
      props.put("s3.retry.num-retries", "1"); // fail fast into Floe's own backoff
      CatalogSpec catalogSpec = new CatalogSpec(CatalogType.JDBC, "jdbc:sqlite:" + dir.resolve("catalog.db"), "s3://lake/warehouse", null, null, props);
      Catalog catalog = CatalogLoader.load("floe", catalogSpec, SecretResolver.fromEnvironment());
      String topic = TestKafka.topic("orders", OrdersTable.PARTITIONS);
      SinkSpec spec = new SinkSpec(new SourceSpec(TestKafka.bootstrap(), List.of(topic), null, "floe-outage", null, Map.of()),
          new TableSpec(catalogSpec, "outage.orders", List.of(), List.of(), 2, null, OrdersTable.RULES, Map.of()),
          new CommitSpec("300ms", 200, null), null, null);
      OrdersModel model = new OrdersModel();
      OrdersSource source = new OrdersSource(topic);
      List<Step> steps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(1_000).sample();
      TestKafka.produce(source.records(steps.subList(0, 400), model));

      SinkEngine engine = new SinkEngine(spec, catalog);
      WorkerMetrics metrics = new WorkerMetrics(spec.sinkId());
      SinkRunner runner = new SinkRunner(spec, engine, metrics, SecretResolver.fromEnvironment());
      Thread worker = new Thread(runner, "worker");
      worker.start();
      long firstEnd = total(source);
      await().atMost(Duration.ofSeconds(60)).until(() -> applied(engine) == firstEnd);

      s3.stop();
      TestKafka.produce(source.records(steps.subList(400, 1_000), model));
      await().atMost(Duration.ofSeconds(60)).until(() -> !runner.isReady()); // failing commits: not ready
      await().atMost(Duration.ofSeconds(60)).until(() -> metrics.commitFailures() >= 3); // retried with backoff, not given up
      s3.start();
      long end = total(source);
      await().atMost(Duration.ofSeconds(120)).until(() -> runner.isReady() && applied(engine) == end);
      runner.stop();
      worker.join(30_000);
      runner.close();

      assertThat(runner.failure()).isNull();
      assertThat(ScriptPlayer.actual(engine.table())).isEqualTo(model.expected());
    }
  }

  private static long total(OrdersSource source) {
    return source.nextOffsets().values().stream().mapToLong(Long::longValue).sum();
  }

  private static long applied(SinkEngine engine) {
    return engine.offsets().next().values().stream().mapToLong(Long::longValue).sum();
  }
}
