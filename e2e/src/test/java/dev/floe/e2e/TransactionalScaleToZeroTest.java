package dev.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.operator.model.ScalingSpec;
import dev.floe.operator.scale.KafkaLagReader;
import dev.floe.operator.scale.ReplicaPlanner;
import dev.floe.operator.scale.ReplicaPlanner.Observation;
import dev.floe.operator.scale.ReplicaPlanner.Plan;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.engine.TableRouter;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.runtime.SinkRunner;
import dev.floe.worker.runtime.WorkerMetrics;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import dev.floe.worker.testing.TransactionalProducer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sink on a transactional topic (Debezium under Kafka Connect with exactly-once source support)
 * wakes, applies everything, and then the operator's lag reader reads 0 and its planner scales the
 * workers to zero: the commit markers never count as lag (kedacore/keda#5675).
 */
class TransactionalScaleToZeroTest {
  static final ScalingSpec POLICY = new ScalingSpec(0, 4, 1_000L, 0L, "2s", "0s", "1s");

  @TempDir Path dir;

  @Test
  void theOperatorScalesASinkOnATransactionalTopicToZeroOnceTheWorkerHasAppliedIt() throws Exception {
    // given a transactional topic holding two committed transactions and an aborted one
    String topic = TestKafka.topic("txorders", OrdersTable.PARTITIONS);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = new SinkSpec(new SourceSpec(TestKafka.bootstrap(), List.of(topic), null, "floe-tx", null, Map.of()),
        new TableSpec(warehouse.spec(), "tx.orders", List.of(), List.of(), 2, null, OrdersTable.RULES, Map.of()),
        new CommitSpec("200ms", 300, null), new DeadLetterSpec(TestKafka.topic("dlq", 1)), null);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    try (TransactionalProducer tx = new TransactionalProducer(TestKafka.bootstrap());
         KafkaLagReader lagReader = new KafkaLagReader(Duration.ofSeconds(10))) {
      tx.commit(source.records(upserts(1, 60), model));
      tx.abort(new OrdersSource(topic).records(upserts(500, 520), new OrdersModel()));
      tx.commit(source.records(upserts(30, 90), model));
      Operator operator = new Operator(lagReader, spec.source());

      // when the operator polls: the backlog wakes the sink
      assertThat(operator.poll().replicas()).isEqualTo(1);
      SinkRunner worker = new SinkRunner(spec, TableRouter.of(spec, warehouse.catalog()), new WorkerMetrics(spec.sinkId()),
          SecretResolver.fromEnvironment());
      Thread thread = new Thread(worker, "worker");
      thread.start();
      try {
        // then once the worker has applied it, the lag reads 0 and the idle sink goes to zero workers
        await().atMost(Duration.ofSeconds(60)).until(() -> operator.poll().replicas() == 0);
        assertThat(operator.last.reason()).isEqualTo(ReplicaPlanner.Reason.IDLE);
        assertThat(lagReader.read(spec.source(), Map.of()).total()).isZero();
      } finally {
        worker.stop();
        thread.join(30_000);
        worker.close();
      }
      assertThat(worker.failure()).isNull();
      assertThat(ScriptPlayer.actual(warehouse.catalog().loadTable(TableIdentifier.parse("tx.orders")))).isEqualTo(model.expected());
    }
  }

  private static List<Step> upserts(long from, long to) {
    return LongStream.rangeClosed(from, to).mapToObj(id -> (Step) new Step.Upsert(id, Map.of("qty", (int) (id % 89)))).toList();
  }

  /** The operator's scaling loop for one sink: read the lag, plan, and run what it planned. */
  static final class Operator {
    final KafkaLagReader reader;
    final SourceSpec source;
    Plan last = new Plan(0, null, null, ReplicaPlanner.Reason.ASLEEP);

    Operator(KafkaLagReader reader, SourceSpec source) {
      this.reader = reader;
      this.source = source;
    }

    Plan poll() {
      long lag = reader.read(source, Map.of()).total();
      last = ReplicaPlanner.plan(POLICY, new Observation(lag, OrdersTable.PARTITIONS, last.replicas(), last.lastActive(), last.lastBusy(), Instant.now()));
      return last;
    }
  }
}
