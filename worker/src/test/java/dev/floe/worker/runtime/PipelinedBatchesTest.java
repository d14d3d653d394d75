package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.engine.TableRouter;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.GroupState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow commits against a real broker: the worker polls the next batch while one commits, holds
 * back once that batch is full, and a rebalance during a commit waits for it, so nothing is lost
 * or doubled.
 */
class PipelinedBatchesTest {
  private static final int BATCH = 200;
  /** Polls this small, so how far the worker reads ahead shows (the default is 5000). */
  private static final int POLL_RECORDS = 50;

  @TempDir Path dir;

  @Test
  void theNextBatchIsPolledWhileOneCommitsAndNoFurther() throws Exception {
    // given a backlog of many batches, and commits that take a second each
    String topic = TestKafka.topic("orders", OrdersTable.PARTITIONS);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = sink(topic, warehouse, "floe-pipelined");
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    List<Step> steps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(1_500).sample();
    TestKafka.produce(source.records(steps, model));
    long end = total(source);

    AtomicInteger commits = new AtomicInteger();
    AtomicLong polledDuringSecondCommit = new AtomicLong(-1);
    AtomicLong mostReadAhead = new AtomicLong();
    SinkRunner[] runner = new SinkRunner[1];
    SinkEngine engine = new SinkEngine(spec, warehouse.catalog());
    engine.beforeCommit(() -> {
      if (commits.incrementAndGet() == 2) {
        // while this commit is pending, the next batch fills up on the polling thread
        long before = (long) BATCH * 2; // the first batch committed, this one in flight
        await().atMost(Duration.ofSeconds(20)).until(() -> runner[0].polledRecords() >= before + BATCH);
        polledDuringSecondCommit.set(runner[0].polledRecords());
      }
      sleep(Duration.ofMillis(1_000));
      // what was polled beyond the batch committing now: at most the next batch and one poll
      mostReadAhead.accumulateAndGet(runner[0].polledRecords() - (long) BATCH * commits.get(), Math::max);
    });

    // when a worker runs through it
    runner[0] = new SinkRunner(spec, TableRouter.single(engine), new WorkerMetrics(spec.sinkId()), SecretResolver.fromEnvironment(), null);
    Thread worker = new Thread(runner[0], "worker");
    worker.start();
    SinkEngine probe = new SinkEngine(spec, warehouse.catalog()); // the test's own: an engine is one thread's
    await().atMost(Duration.ofSeconds(120)).until(() -> applied(probe) == end);
    runner[0].stop();
    worker.join(30_000);
    runner[0].close();

    // then the next batch was ready when a commit returned, the worker read no further ahead, and the table equals the source
    assertThat(runner[0].failure()).isNull();
    assertThat(polledDuringSecondCommit.get()).isGreaterThanOrEqualTo(3L * BATCH);
    assertThat(mostReadAhead.get()).isLessThanOrEqualTo(BATCH + POLL_RECORDS);
    SinkEngine check = new SinkEngine(spec, warehouse.catalog());
    assertThat(OffsetLedger.read(check.table(), spec.sinkId()).next()).isEqualTo(source.nextOffsets());
    assertThat(ScriptPlayer.actual(check.table())).isEqualTo(model.expected());
  }

  /** A group between assignments: the classic protocol's join and sync, the consumer protocol's new target not yet reached. */
  private static final java.util.Set<GroupState> REBALANCING = java.util.EnumSet.of(GroupState.PREPARING_REBALANCE,
      GroupState.COMPLETING_REBALANCE, GroupState.ASSIGNING, GroupState.RECONCILING);

  @Test
  void aRebalanceDuringACommitWaitsForItAndLosesAndDoublesNothing() throws Exception {
    // given a worker whose commits are slow, on a backlog
    String topic = TestKafka.topic("orders", OrdersTable.PARTITIONS);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    String group = "floe-pipelined-rebalance";
    SinkSpec spec = sink(topic, warehouse, group);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    List<Step> steps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(2_000).sample();
    TestKafka.produce(source.records(steps.subList(0, 1_000), model));

    CountDownLatch committing = new CountDownLatch(1);
    CountDownLatch secondStarted = new CountDownLatch(1);
    AtomicBoolean rebalancedDuringCommit = new AtomicBoolean();
    AtomicInteger commits = new AtomicInteger();
    SinkEngine slow = new SinkEngine(spec, warehouse.catalog());
    slow.beforeCommit(() -> {
      if (commits.incrementAndGet() == 2) {
        committing.countDown();
        awaitLatch(secondStarted);
        // hold this commit until the group is rebalancing: the first worker is then inside poll,
        // in its revocation, waiting for this commit before it gives its partitions up
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrap()))) {
          await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() ->
              REBALANCING.contains(admin.describeConsumerGroups(List.of(group)).all().get().get(group).groupState()));
          rebalancedDuringCommit.set(true);
        }
        sleep(Duration.ofMillis(500));
      } else {
        sleep(Duration.ofMillis(300));
      }
    });
    SinkRunner a = new SinkRunner(spec, TableRouter.single(slow), new WorkerMetrics(spec.sinkId()), SecretResolver.fromEnvironment(), null);
    Thread first = new Thread(a, "worker-a");
    first.start();

    // when a second worker joins while the first one's second commit is pending, and more arrives
    assertThat(committing.await(60, TimeUnit.SECONDS)).isTrue();
    RunningWorker b = RunningWorker.start(spec, warehouse);
    secondStarted.countDown();
    await().atMost(Duration.ofSeconds(60)).until(() -> !b.runner.owned().isEmpty() && !a.owned().isEmpty());
    TestKafka.produce(source.records(steps.subList(1_000, 2_000), model));
    long end = total(source);
    SinkEngine probe = new SinkEngine(spec, warehouse.catalog()); // the test's own: an engine is one thread's
    await().atMost(Duration.ofSeconds(120)).until(() -> applied(probe) == end);
    b.stop();
    a.stop();
    first.join(30_000);
    a.close();

    // then the rebalance came while the commit was pending, and the table equals the source
    assertThat(rebalancedDuringCommit).isTrue();
    assertThat(a.failure()).isNull();
    SinkEngine check = new SinkEngine(spec, warehouse.catalog());
    assertThat(OffsetLedger.read(check.table(), spec.sinkId()).next()).isEqualTo(source.nextOffsets());
    assertThat(ScriptPlayer.actual(check.table())).isEqualTo(model.expected());
  }

  private static SinkSpec sink(String topic, LocalWarehouse warehouse, String group) {
    return new SinkSpec(new SourceSpec(TestKafka.bootstrap(), List.of(topic), null, group, null,
            Map.of("max.poll.records", String.valueOf(POLL_RECORDS))),
        new TableSpec(warehouse.spec(), "pipelined.orders", List.of(), List.of(), 2, null, OrdersTable.RULES, Map.of()),
        new CommitSpec("5s", BATCH, null), null, null);
  }

  private static long total(OrdersSource source) {
    return source.nextOffsets().values().stream().mapToLong(Long::longValue).sum();
  }

  private static long applied(SinkEngine engine) {
    return engine.offsets().next().values().stream().mapToLong(Long::longValue).sum();
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
