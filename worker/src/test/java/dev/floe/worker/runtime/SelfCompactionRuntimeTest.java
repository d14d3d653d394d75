package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.SelfCompactionSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.maintain.Compactor;
import dev.floe.worker.maintain.SelfCompactor;
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
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker against a real Kafka broker compacts what it wrote once idle: reads come back to fresh, nothing lost or resurrected. */
class SelfCompactionRuntimeTest {
  @TempDir Path dir;

  @Test
  void anIdleWorkerRewritesTheFilesItsDeletesApplyToAndKeepsIngestingOntoTheRewrittenFiles() {
    for (WriteMode mode : WriteMode.values()) {
      // given a worker that compacts after 2 s without records, and a stream of upserts, deletes and key changes in many small batches
      String topic = TestKafka.topic("selfc", OrdersTable.PARTITIONS);
      LocalWarehouse warehouse = new LocalWarehouse(dir.resolve(mode.name()));
      SinkSpec spec = sink(topic, warehouse, mode);
      OrdersModel model = new OrdersModel();
      OrdersSource source = new OrdersSource(topic);
      List<Step> steps = new java.util.ArrayList<>();
      for (long id = 1_000; id < 1_400; id++) { // rows that live on, beside the script's small key space
        steps.add(new Step.Upsert(id, Map.of("qty", 1)));
      }
      steps.addAll(OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(600).sample());
      for (long id = 1_000; id < 1_400; id += 7) { // updates and deletes of rows the first compaction rewrote
        steps.add(id % 2 == 0 ? new Step.Delete(id) : new Step.Upsert(id, Map.of("qty", 5)));
      }
      steps.addAll(OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(500).sample());
      TestKafka.produce(source.records(steps.subList(0, 1_000), model));
      RunningWorker w = RunningWorker.start(spec, warehouse);

      // when it has applied everything and stays idle
      long end = source.nextOffsets().values().stream().mapToLong(Long::longValue).sum();
      await().atMost(Duration.ofSeconds(90)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == end);
      await().atMost(Duration.ofSeconds(60)).until(() -> selfRewrites(table(spec, warehouse)) > 0 && deleteFiles(table(spec, warehouse)) == 0);

      // then a full scan reads no deleted row (no delete file is left) and equals the source, and the offsets are intact
      Table table = table(spec, warehouse);
      assertThat(ScriptPlayer.actual(table)).as(mode.name()).isEqualTo(model.expected());
      assertThat(OffsetLedger.read(table, spec.sinkId()).next()).isEqualTo(source.nextOffsets());
      assertThat(rewrittenBytes(w)).as("write amplification is reported").isPositive();
      assertThat(w.metrics.scrape()).contains("floe_committed_bytes_total");

      // and ingest goes on from the rewritten files: updates and deletes of rewritten rows land, once
      TestKafka.produce(source.records(steps.subList(1_000, steps.size()), model));
      long end2 = source.nextOffsets().values().stream().mapToLong(Long::longValue).sum();
      await().atMost(Duration.ofSeconds(90)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == end2);
      await().atMost(Duration.ofSeconds(60)).until(() -> deleteFiles(table(spec, warehouse)) == 0);
      w.stop();
      Table after = table(spec, warehouse);
      assertThat(ScriptPlayer.actual(after)).as(mode.name()).isEqualTo(model.expected());
      assertThat(OffsetLedger.read(after, spec.sinkId()).next()).isEqualTo(source.nextOffsets());
    }
  }

  private static SinkSpec sink(String topic, LocalWarehouse warehouse, WriteMode mode) {
    CompactionSpec compaction = new CompactionSpec(null, null, null, null, null, null, null, null, null, null, null,
        new SelfCompactionSpec(true, "2s", 0.2));
    return new SinkSpec(
        new SourceSpec(TestKafka.bootstrap(), List.of(topic), null, "floe-selfc", null, Map.of()),
        new TableSpec(warehouse.spec(), "rt." + topic.replace('.', '_').replace('-', '_'), List.of(), List.of(),
            mode == WriteMode.POSITION_DELETES ? 3 : 2, mode, OrdersTable.RULES, Map.of()),
        new CommitSpec("200ms", 150, null), null, null, compaction);
  }

  private static Table table(SinkSpec spec, LocalWarehouse warehouse) {
    return new SinkEngine(spec, warehouse.catalog()).table();
  }

  private static long deleteFiles(Table table) {
    return Long.parseLong(table.currentSnapshot().summary().getOrDefault("total-delete-files", "0"));
  }

  private static long selfRewrites(Table table) {
    long n = 0;
    for (Snapshot s : table.snapshots()) {
      if (SelfCompactor.MARKER.equals(s.summary().get(Compactor.COMPACTION_PROPERTY))) {
        n++;
      }
    }
    return n;
  }

  private static double rewrittenBytes(RunningWorker w) {
    return w.metrics.registry().find("floe.self.compaction.rewritten.bytes").counters().stream().mapToDouble(c -> c.count()).sum();
  }
}
