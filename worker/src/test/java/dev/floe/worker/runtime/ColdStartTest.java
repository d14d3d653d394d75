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
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.LongStream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
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
    Sink sink = positionDeletesSink();
    LocalWarehouse warehouse = sink.warehouse();
    SinkSpec spec = sink.spec();
    OrdersModel model = new OrdersModel();
    RunningWorker first = RunningWorker.start(spec, warehouse);
    for (int round = 0; round < 3; round++) {
      TestKafka.produce(sink.source().records(upserts(1 + round * 10, 40 + round * 10), model));
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
    TestKafka.produce(sink.source().records(upserts(35, 70), model));
    RunningWorker next = RunningWorker.start(spec, warehouse);
    await().atMost(Duration.ofSeconds(60)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 120 + 36);
    next.stop();
    assertThat(ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table())).isEqualTo(model.expected());
  }

  @Test
  void aWorkerWokenOnABacklogCommitsItOnceReadWithoutWaitingOutTheCommitInterval() {
    // given a backlog waiting for a sink whose batches stay open for up to 10 minutes
    Sink sink = positionDeletesSink();
    LocalWarehouse warehouse = sink.warehouse();
    SinkSpec base = sink.spec();
    SinkSpec spec = new SinkSpec(base.source(), base.table(), new CommitSpec("10m", null, null), null, null);
    OrdersModel model = new OrdersModel();
    TestKafka.produce(sink.source().records(upserts(1, 50), model));

    // when a worker is woken for it (scale from zero)
    RunningWorker worker = RunningWorker.start(spec, warehouse);

    // then it commits the backlog as soon as it has read it, long before the interval
    await().atMost(Duration.ofSeconds(60)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 50);
    await().atMost(Duration.ofSeconds(10)).until(() -> worker.committedBatches() == 1); // counted once the outcome is settled
    worker.stop();
    assertThat(worker.committedBatches()).as("one batch: the backlog").isEqualTo(1);
    assertThat(ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table())).isEqualTo(model.expected());
  }

  @Test
  void aStartingWorkerJoinsAndSeeksWhileItsTableAndIndexStillLoad() throws Exception {
    // given a table holding the offsets of an earlier worker, and a backlog after them
    Sink sink = positionDeletesSink();
    LocalWarehouse warehouse = sink.warehouse();
    SinkSpec spec = sink.spec();
    OrdersModel model = new OrdersModel();
    RunningWorker first = RunningWorker.start(spec, warehouse);
    TestKafka.produce(sink.source().records(upserts(1, 40), model));
    await().atMost(Duration.ofSeconds(60)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 40);
    first.stop();
    TestKafka.produce(sink.source().records(upserts(30, 60), model));

    // when a successor starts whose applying thread cannot load the table (nor so its index) until released
    CountDownLatch released = new CountDownLatch(1);
    RunningWorker next = RunningWorker.start(spec, heldOnApplyingThread(warehouse.catalog(), released));

    // then the group assigns it its partitions meanwhile, and it reads from the table's offsets on
    await().atMost(Duration.ofSeconds(30)).until(() -> next.runner.owned().size() == 2);
    await().atMost(Duration.ofSeconds(30)).until(() -> next.runner.polledRecords() == 31);
    assertThat(next.committedBatches()).as("nothing applied while the table loads").isZero();

    // and once the table has loaded, the backlog commits exactly: read once, nothing before it again
    released.countDown();
    await().atMost(Duration.ofSeconds(60)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 40 + 31);
    next.stop();
    assertThat(next.runner.polledRecords()).as("only the backlog was read").isEqualTo(31);
    assertThat(ScriptPlayer.actual(new SinkEngine(spec, warehouse.catalog()).table())).isEqualTo(model.expected());
  }

  /** The catalog, its table loads on a worker's applying thread held until {@code released} opens. */
  private static Catalog heldOnApplyingThread(Catalog catalog, CountDownLatch released) {
    return (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(), new Class<?>[] {Catalog.class}, (proxy, method, args) -> {
      if (method.getName().equals("loadTable") && Thread.currentThread().getName().startsWith("floe-apply-")) {
        released.await();
      }
      try {
        return method.invoke(catalog, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    });
  }

  /** A position-deletes sink of a fresh two-partition topic, its warehouse in this test's directory, and the source writing to it. */
  private record Sink(LocalWarehouse warehouse, SinkSpec spec, OrdersSource source) {}

  private Sink positionDeletesSink() {
    String topic = TestKafka.topic("orders", 2);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    return new Sink(warehouse, positionDeletes(KafkaRuntimeTest.sink(topic, warehouse, null)), new OrdersSource(topic));
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
