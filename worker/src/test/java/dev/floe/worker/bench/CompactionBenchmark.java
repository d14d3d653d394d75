package dev.floe.worker.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.apply.DeleteCache;
import dev.floe.worker.apply.LiveRows;
import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.maintain.CompactionReport;
import dev.floe.worker.maintain.Compactor;
import dev.floe.worker.testing.LocalWarehouse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table after many CDC batches, before and after {@code floe compact}: files, bytes and full-scan
 * time, as ratios measured in the same process; and the live rows of every data file read as a
 * rewrite reads them, each delete file loaded once ({@link DeleteCache}) against once per data file
 * it applies to. Full size (50 batches of 20k events over 100k keys) with {@code -Dfloe.long=true}; a
 * small smoke run otherwise. {@code -Dfloe.bench.writeMode=equality-deletes} writes the table with
 * equality deletes (default: the default write mode).
 */
class CompactionBenchmark {
  @TempDir Path dir;

  @Test
  void smoke() {
    run(10, 2_000, 5_000);
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.long", matches = "true")
  void fullSize() {
    System.out.println(run(50, 20_000, 100_000));
  }

  private String run(int batches, int eventsPerBatch, int keys) {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = new SinkSpec(new SourceSpec("unused:9092", List.of(OrdersWorkload.TOPIC), null, "floe-bench", null, null),
        new TableSpec(warehouse.spec(), "bench.compact_orders", List.of(), List.of(), 2, writeMode(), Map.of(), Map.of()), null, null, null);
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    OrdersWorkload workload = new OrdersWorkload(keys);
    for (int b = 0; b < batches; b++) {
      engine.apply(workload.nextBatch(eventsPerBatch), DeadLetters.DISCARD);
    }
    Table table = engine.table();
    long rows = TableScans.scan(table);
    double scanBefore = TableScans.bestOf3(table);
    double[] uncached = liveRowsSeconds(table, null);
    DeleteCache cache = DeleteCache.ofHeap();
    double[] cached = liveRowsSeconds(table, cache);
    assertThat(cached[1]).as("the same live rows through the cache").isEqualTo(uncached[1]).isEqualTo(rows);
    CompactionSpec spec = new CompactionSpec(null, null, null, "0s", 1, "3d", null, true, true, true, true);
    CompactionReport r = new Compactor(table, sink.sinkId(), spec).run();
    table.refresh();
    double scanAfter = TableScans.bestOf3(table);
    assertThat(TableScans.scan(table)).isEqualTo(rows).isEqualTo(workload.current().size());
    return String.format(Locale.ROOT, """
        compaction after %d CDC batches of %,d events over %,d keys (%,d live rows, %s), compact took %.1f s:
          live rows as a rewrite reads them: %.3f s with each delete file loaded per data file (%,d loads), %.3f s loaded once (%.2fx; %,d loads)
          data files   %,d -> %,d   delete files %,d -> %,d   snapshots %,d -> %,d
          bytes        %,d -> %,d   (%.2fx)
          full scan    %.3f s -> %.3f s   (%.1fx faster)
        """, batches, eventsPerBatch, keys, rows, writeMode().text(), r.seconds(), uncached[0], (long) uncached[2], cached[0], uncached[0] / cached[0], cache.loads(), r.before().dataFiles(), r.after().dataFiles(),
        r.before().deleteFiles(), r.after().deleteFiles(), r.before().snapshots(), r.after().snapshots(),
        r.before().bytes(), r.after().bytes(), (double) r.after().bytes() / r.before().bytes(),
        scanBefore, scanAfter, scanBefore / scanAfter);
  }

  private static WriteMode writeMode() {
    String named = System.getProperty("floe.bench.writeMode", WriteMode.DEFAULT.text());
    return java.util.Arrays.stream(WriteMode.values()).filter(m -> m.text().equals(named)).findFirst().orElseThrow();
  }

  /** Seconds to read every data file's live rows as a rewrite does, the rows read, and the delete files that apply to them summed over data files. */
  private static double[] liveRowsSeconds(Table table, DeleteCache cache) {
    long t0 = System.nanoTime();
    long n = 0;
    long applied = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        applied += task.deletes().size();
        try (CloseableIterable<Record> live = LiveRows.read(table, task, table.schema(), cache)) {
          for (Record ignored : live) {
            n++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new double[] {(System.nanoTime() - t0) / 1e9, n, applied};
  }
}
