package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.SchemaRegistrySpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.decode.AvroWire;
import dev.floe.worker.decode.ChangeDecoders;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.avro.SchemaId;
import dev.floe.worker.decode.avro.StandInRegistry;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A schema registry outage under a running Avro worker, real broker in the test JVM: while the
 * registry answers 503 the worker is not ready and retries, nothing reaches the dead-letter topic,
 * and once the registry is back it catches up to a table equal to the source.
 */
class RegistryOutageTest {
  @TempDir Path dir;

  @Test
  void theWorkerRidesOutARegistryOutageDeadLetteringNothing() throws Exception {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    AvroWire wire = new AvroWire();
    try (StandInRegistry registry = new StandInRegistry()) {
      String topic = TestKafka.topic("avro-orders", OrdersTable.PARTITIONS);
      String dlq = TestKafka.topic("avro-dlq", 1);
      SourceSpec source = new SourceSpec(TestKafka.bootstrap(), List.of(topic), null, "floe-avro-outage", null, Map.of())
          .withAvro(SchemaRegistrySpec.at(registry.url()));
      SinkSpec spec = new SinkSpec(source, new TableSpec(warehouse.spec(), "avro_outage.orders", List.of(), List.of(), 2, null,
          OrdersTable.RULES, Map.of()), new CommitSpec("300ms", 200, null), new DeadLetterSpec(dlq), null);
      OrdersModel model = new OrdersModel();
      OrdersSource orders = new OrdersSource(topic);
      List<Step> steps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(400).sample();
      registry.failWith(503); // down from the start: the worker has never seen a schema
      TestKafka.produce(avro(wire, orders.records(steps, model)));
      for (long id = 1; ; id++) {
        try {
          registry.with(id, wire.writerSchema(SchemaId.confluent(id)));
        } catch (RuntimeException e) {
          break;
        }
      }

      SinkEngine engine = new SinkEngine(spec, warehouse.catalog(), ChangeDecoders.of(source, new SecretResolver(k -> null)));
      WorkerMetrics metrics = new WorkerMetrics(spec.sinkId());
      SinkRunner runner = new SinkRunner(spec, engine, metrics, SecretResolver.fromEnvironment());
      Thread worker = new Thread(runner, "worker");
      worker.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> metrics.commitFailures() >= 3); // retried with backoff, not given up
      assertThat(runner.isReady()).as("ready during the outage").isFalse();
      assertThat(engine.table()).isNull();

      registry.failWith(0);
      long end = orders.nextOffsets().values().stream().mapToLong(Long::longValue).sum();
      await().atMost(Duration.ofSeconds(120)).until(() -> runner.isReady() && applied(engine) == end);
      runner.stop();
      worker.join(30_000);
      runner.close();

      assertThat(runner.failure()).isNull();
      assertThat(ScriptPlayer.actual(engine.table())).isEqualTo(model.expected());
      assertThat(TestKafka.readAll(dlq, 1, Duration.ofSeconds(3))).as("dead letters").isEmpty();
    }
  }

  private static List<RawRecord> avro(AvroWire wire, List<RawRecord> json) {
    return json.stream().map(r -> wire.rewrite(r, AvroWire.Format.CONFLUENT)).toList();
  }

  private static long applied(SinkEngine engine) {
    return engine.offsets().next().values().stream().mapToLong(Long::longValue).sum();
  }
}
