package dev.floe.worker.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's speed on the {@code orders} CDC workload, as ratios against baselines run in the
 * same process: events/s of decode+fold+apply+commit, and the full-scan time of the table after
 * the batches against the same rows written fresh. Full size (1M events over 100k keys, 10
 * batches) with {@code -Dfloe.long=true}; a small smoke run otherwise keeps the code honest.
 */
class OrdersBenchmark {
  @TempDir Path dir;

  @Test
  void smoke() {
    for (WriteMode mode : WriteMode.values()) {
      Report r = run(20_000, 2_000, 4, mode);
      assertThat(r.rows()).isEqualTo(r.expectedRows());
    }
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.long", matches = "true")
  void fullSize() {
    BenchSize size = BenchSize.fromProperties();
    for (WriteMode mode : size.modes()) {
      Report r = run(size.events(), size.keys(), 10, mode);
      System.out.println(r);
      assertThat(r.rows()).isEqualTo(r.expectedRows());
    }
  }

  record Report(WriteMode mode, int events, int keys, int batches, double engineSeconds, double freshWriteSeconds,
      long rows, long expectedRows, double scanSeconds, double freshScanSeconds, int dataFiles, int deleteFiles) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, """
          orders benchmark: %,d events over %,d keys in %d batches (%s, format v%d)
            engine:      %.2f s  = %,.0f events/s (decode+fold+apply+commit)
            fresh write: %.2f s  = %,.0f rows/s (same final rows as one batch of snapshot reads)
            rows: %,d (expected %,d); files: %d data, %d delete
            full scan after batches: %.3f s; same rows written fresh: %.3f s; ratio %.2fx
          """, events, keys, batches, mode, Integer.getInteger("floe.bench.format", 2), engineSeconds, events / engineSeconds, freshWriteSeconds, expectedRows / freshWriteSeconds,
          rows, expectedRows, dataFiles, deleteFiles, scanSeconds, freshScanSeconds, scanSeconds / freshScanSeconds);
    }
  }

  private Report run(int events, int keys, int batches, WriteMode mode) {
    LocalWarehouse warehouse = new LocalWarehouse(dir.resolve(mode.name()));
    SinkEngine engine = new SinkEngine(sink(warehouse, "bench.orders", mode), warehouse.catalog());
    OrdersWorkload workload = new OrdersWorkload(keys);
    long engineNanos = 0;
    for (int b = 0; b < batches; b++) {
      List<RawRecord> batch = workload.nextBatch(events / batches);
      long t0 = System.nanoTime();
      BatchResult result = engine.apply(batch, DeadLetters.DISCARD);
      engineNanos += System.nanoTime() - t0;
      assertThat(result.rejected()).isEmpty();
    }
    System.out.println(mode + " phases (ms): " + engine.phaseTimes().millis());
    SinkEngine fresh = new SinkEngine(sink(warehouse, "bench.orders_fresh", mode), warehouse.catalog());
    List<RawRecord> snapshot = workload.snapshotOfCurrent();
    long t0 = System.nanoTime();
    fresh.apply(snapshot, DeadLetters.DISCARD);
    long freshNanos = System.nanoTime() - t0;

    Table table = engine.table();
    Table freshTable = fresh.table();
    long rows = TableScans.scan(table);
    double scan = TableScans.bestOf3(table);
    double freshScan = TableScans.bestOf3(freshTable);
    Map<String, String> summary = table.currentSnapshot().summary();
    return new Report(mode, events, keys, batches, engineNanos / 1e9, freshNanos / 1e9, rows, workload.current().size(),
        scan, freshScan, Integer.parseInt(summary.getOrDefault("total-data-files", "0")),
        Integer.parseInt(summary.getOrDefault("total-delete-files", "0")));
  }



  private static SinkSpec sink(LocalWarehouse warehouse, String table, WriteMode mode) {
    return new SinkSpec(
        new SourceSpec("unused:9092", List.of(OrdersWorkload.TOPIC), null, "floe-bench", null, null),
        new TableSpec(warehouse.spec(), table, List.of(), List.of(), Integer.getInteger("floe.bench.format", 2), mode, Map.of(), Map.of()),
        null, null, null);
  }
}
