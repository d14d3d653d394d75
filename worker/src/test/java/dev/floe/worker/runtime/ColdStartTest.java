package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.apply.PersistedIndex;
import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
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
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scale-from-zero pays a worker's start on every wake-up: a worker that stops gracefully leaves the
 * primary-key index persisted at its last commit, so its successor loads it as is, with nothing to
 * catch up and nothing to rebuild.
 */
class ColdStartTest {
  @TempDir Path dir;

  @Test
  void aGracefullyStoppedWorkerLeavesItsIndexPersistedAtItsLastCommit() {
    // given a position-deletes sink whose worker committed a few batches of upserts
    String topic = TestKafka.topic("orders", 2);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = positionDeletes(KafkaRuntimeTest.sink(topic, warehouse, null));
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    RunningWorker first = RunningWorker.start(spec, warehouse);
    for (int round = 0; round < 3; round++) {
      TestKafka.produce(source.records(upserts(1 + round * 10, 40 + round * 10), model));
      long expected = 40L * (round + 1);
      await().atMost(Duration.ofSeconds(60)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == expected);
    }

    // when it stops as on SIGTERM (a scale to zero)
    first.stop();

    // then the table's current snapshot carries the persisted index, for the next worker to load at once
    Table table = new SinkEngine(spec, warehouse.catalog()).table();
    long current = table.currentSnapshot().snapshotId();
    assertThat(PersistedIndex.loadNewest(table, current, TableLayout.of(table, spec.table())))
        .as("index persisted at the last commit").isNotNull()
        .satisfies(index -> assertThat(index.snapshotId()).isEqualTo(current));

    // and a successor started on a backlog applies it exactly
    TestKafka.produce(source.records(upserts(35, 70), model));
    RunningWorker next = RunningWorker.start(spec, warehouse);
    await().atMost(Duration.ofSeconds(60)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 120 + 36);
    next.stop();
    assertThat(ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table())).isEqualTo(model.expected());
  }

  @Test
  void aWorkerWokenOnABacklogCommitsItOnceReadWithoutWaitingOutTheCommitInterval() {
    // given a backlog waiting for a sink whose batches stay open for up to 10 minutes
    String topic = TestKafka.topic("orders", 2);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec base = positionDeletes(KafkaRuntimeTest.sink(topic, warehouse, null));
    SinkSpec spec = new SinkSpec(base.source(), base.table(), new CommitSpec("10m", null, null), null, null);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    TestKafka.produce(source.records(upserts(1, 50), model));

    // when a worker is woken for it (scale from zero)
    RunningWorker worker = RunningWorker.start(spec, warehouse);

    // then it commits the backlog as soon as it has read it, long before the interval
    await().atMost(Duration.ofSeconds(60)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 50);
    assertThat(worker.committedBatches()).isEqualTo(1);
    worker.stop();
    assertThat(ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table())).isEqualTo(model.expected());
  }

  private static SinkSpec positionDeletes(SinkSpec base) {
    TableSpec t = base.table();
    TableSpec table = new TableSpec(t.catalog(), t.name(), t.primaryKey(), t.partitionBy(), 2, WriteMode.POSITION_DELETES, t.mergeRules(), t.properties());
    return new SinkSpec(base.source(), table, base.commit(), base.deadLetter(), base.onError());
  }

  private static List<Step> upserts(long from, long to) {
    return LongStream.rangeClosed(from, to).mapToObj(id -> (Step) new Step.Upsert(id, Map.of("qty", (int) id))).toList();
  }
}
