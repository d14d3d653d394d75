package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.OnError;
import dev.floe.worker.config.SinkConfigLoader;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code floe run} in a child JVM, killed with SIGKILL at random points and restarted several
 * times, then stopped with SIGTERM: the table equals the source, nothing lost, nothing doubled
 * (a summed column would show any double), and the clean stop exits 0.
 */
class CrashRecoveryTest {
  @TempDir Path dir;

  @Test
  void aWorkerKilledAtRandomPointsAndRestartedLosesAndDoublesNothing() throws Exception {
    String topic = TestKafka.topic("orders", OrdersTable.PARTITIONS);
    LocalWarehouse warehouse = new LocalWarehouse(dir.resolve("warehouse"));
    SinkSpec base = KafkaRuntimeTest.sink(topic, warehouse, null);
    // static membership: the restarted worker takes its partitions over at once (as a restarted pod)
    SourceSpec source0 = new SourceSpec(base.source().bootstrapServers(), base.source().topics(), null, base.source().groupId(), null,
        Map.of("group.instance.id", "crash-test-worker", "session.timeout.ms", "10000"));
    // onError: fail: this history has no bad record, and a sink config must say where one would go
    SinkSpec spec = new SinkSpec(source0, base.table(), new CommitSpec("300ms", 150, null), null, OnError.FAIL);
    Path config = dir.resolve("sink.yaml");
    Files.writeString(config, SinkConfigLoader.toYaml(spec));

    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource(topic);
    // No truncates here: a TRUNCATE is ordered across partitions by LSN exactly only for full row
    // images; merge rules straddling a truncate that arrives late from another partition cannot be
    // reconstructed (see README). Truncate ordering is covered by the engine's tests.
    List<Step> steps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(4_000).sample();
    TestKafka.produce(source.records(steps, model));
    long end = source.nextOffsets().values().stream().mapToLong(Long::longValue).sum();

    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<Long> appliedAtKill = new ArrayList<>();
    for (int run = 0; run < 4; run++) {
      Process worker = start(config, run);
      Thread.sleep(3_000 + random.nextInt(4_000));
      worker.destroyForcibly(); // SIGKILL: no shutdown hook, no flush, mid-batch or mid-commit
      worker.waitFor(30, TimeUnit.SECONDS);
      appliedAtKill.add(KafkaRuntimeTest.applied(spec, warehouse));
    }
    Process last = start(config, 99);
    Path lastLog = dir.resolve("worker-99.log");
    await().atMost(Duration.ofSeconds(120)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == end
        && Files.exists(lastLog) && Files.readString(lastLog).contains("resuming from the table's offsets"));
    last.destroy(); // SIGTERM
    assertThat(last.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(last.exitValue()).as("exit code after SIGTERM").isZero();

    System.out.printf("crash recovery (seed %d): records applied when each SIGKILL hit: %s of %d%n", seed, appliedAtKill, end);
    SinkEngine check = new SinkEngine(spec, warehouse.catalog());
    assertThat(OffsetLedger.read(check.table(), spec.sinkId()).next()).isEqualTo(source.nextOffsets());
    assertThat(ScriptPlayer.actual(check.table())).isEqualTo(model.expected());
  }

  private Process start(Path config, int run) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = List.of(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
        "dev.floe.worker.cli.Floe", "run", "--config", config.toString(), "--port", "0");
    File log = dir.resolve("worker-" + run + ".log").toFile();
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
  }
}
