package dev.floe.worker.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.commit.BatchCommitter;
import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.maintain.SelfCompactionPlanner.Trigger;
import dev.floe.worker.maintain.SelfCompactor;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the worker's idle self-compaction buys readers, as ratios in one process: the full scan of
 * the {@code orders} table at lag 0 (as the batches left it) and after the idle compaction, each
 * against the same rows written fresh; and what it costs: bytes rewritten per byte the batches
 * committed. Full size (1M events over 100k keys, 10 batches) with {@code -Dfloe.long=true}
 * ({@code floe.bench.events}, {@code floe.bench.keys}, {@code floe.bench.mode},
 * {@code floe.bench.format} as in {@link OrdersBenchmark}); a smoke run otherwise.
 */
class SelfCompactionBenchmark {
  @TempDir Path dir;

  @Test
  void smoke() {
    Report r = run(20_000, 2_000, 4, WriteMode.POSITION_DELETES, 3);
    assertThat(r.deleteFilesAfter()).isZero();
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.long", matches = "true")
  void fullSize() {
    BenchSize size = BenchSize.fromProperties();
    for (WriteMode mode : size.modes()) {
      int format = Integer.getInteger("floe.bench.format", mode == WriteMode.POSITION_DELETES ? 3 : 2);
      System.out.println(run(size.events(), size.keys(), 10, mode, format));
    }
  }

  record Report(WriteMode mode, int format, int events, int keys, int batches, double lagZeroScan, double idleScan, double freshScan,
      long committedBytes, long rewrittenBytes, double compactSeconds, String filesAtLagZero, String filesAfter, String filesFresh,
      long deleteFilesAfter) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, """
          self-compaction benchmark: %,d events over %,d keys in %d batches (%s, format v%d)
            full scan at lag 0: %.3f s = %.2fx fresh (%s)
            after idle self-compaction: %.3f s = %.2fx fresh (%s); compaction took %.1f s
            same rows written fresh: %.3f s (%s)
            write amplification: %,d bytes rewritten / %,d bytes committed = %.2f
          """, events, keys, batches, mode, format, lagZeroScan, lagZeroScan / freshScan, filesAtLagZero, idleScan, idleScan / freshScan,
          filesAfter, compactSeconds, freshScan, filesFresh, rewrittenBytes, committedBytes, (double) rewrittenBytes / committedBytes);
    }
  }

  private Report run(int events, int keys, int batches, WriteMode mode, int format) {
    LocalWarehouse warehouse = new LocalWarehouse(dir.resolve(mode.name()));
    SinkEngine engine = new SinkEngine(sink(warehouse, "bench.orders", mode, format), warehouse.catalog());
    OrdersWorkload workload = new OrdersWorkload(keys);
    for (int b = 0; b < batches; b++) {
      assertThat(engine.apply(workload.nextBatch(events / batches), DeadLetters.DISCARD).rejected()).isEmpty();
    }
    SinkEngine fresh = new SinkEngine(sink(warehouse, "bench.orders_fresh", mode, format), warehouse.catalog());
    fresh.apply(workload.snapshotOfCurrent(), DeadLetters.DISCARD);
    Table table = engine.table();
    Table freshTable = fresh.table();
    long committed = committedBytes(table, engine.offsets().snapshotId());

    TableScans.scan(freshTable); // warm the reader up on both tables first: the order of the timed scans must not matter
    TableScans.scan(table);
    double lagZero = TableScans.bestOf3(table);
    String filesAtLagZero = files(table);
    long t0 = System.nanoTime();
    SelfCompactor.Report compacted = new SelfCompactor(table, CompactionSpec.DEFAULTS).run(Trigger.IDLE, () -> true);
    double compactSeconds = (System.nanoTime() - t0) / 1e9;
    assertThat(TableScans.scan(table)).isEqualTo(workload.current().size());
    double idle = TableScans.bestOf3(table);
    double freshScan = TableScans.bestOf3(freshTable);
    return new Report(mode, format, events, keys, batches, lagZero, idle, freshScan, committed, compacted.bytesWritten(), compactSeconds,
        filesAtLagZero, files(table), files(freshTable), Long.parseLong(table.currentSnapshot().summary().getOrDefault("total-delete-files", "0")));
  }

  /** Bytes of data and delete files the sink's snapshots added, from the newest back. */
  private static long committedBytes(Table table, Long newest) {
    long bytes = 0;
    for (Snapshot s = newest == null ? null : table.snapshot(newest); s != null; s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      if (s.summary().containsKey(BatchCommitter.SINK_PROPERTY)) {
        bytes += Long.parseLong(s.summary().getOrDefault("added-files-size", "0"));
      }
    }
    return bytes;
  }

  private static String files(Table table) {
    Map<String, String> s = table.currentSnapshot().summary();
    return s.getOrDefault("total-data-files", "0") + " data, " + s.getOrDefault("total-delete-files", "0") + " delete files";
  }

  private static SinkSpec sink(LocalWarehouse warehouse, String table, WriteMode mode, int format) {
    return new SinkSpec(
        new SourceSpec("unused:9092", List.of(OrdersWorkload.TOPIC), null, "floe-bench", null, null),
        new TableSpec(warehouse.spec(), table, List.of(), List.of(), format, mode, Map.of(), Map.of()),
        null, null, null);
  }
}
