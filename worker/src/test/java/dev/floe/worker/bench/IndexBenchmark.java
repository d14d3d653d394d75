package dev.floe.worker.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.apply.PersistedIndex;
import dev.floe.worker.apply.PrimaryKeyIndex;
import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
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

/** The primary-key index: build time from the key columns, heap per key, persisted size, load time. */
class IndexBenchmark {
  @TempDir Path dir;

  @Test
  void smoke() {
    run(20_000);
  }

  @Test
  @EnabledIfSystemProperty(named = "floe.long", matches = "true")
  void fullSize() {
    System.out.println(run(Integer.getInteger("floe.bench.keys", 1_000_000)));
  }

  /** Ten million keys, the table written directly (Parquet appends) rather than through CDC events. */
  @Test
  @EnabledIfSystemProperty(named = "floe.index.10m", matches = "true")
  void tenMillionKeys() {
    int keys = Integer.getInteger("floe.bench.keys", 10_000_000);
    LocalWarehouse warehouse = new LocalWarehouse(dir.resolve("10m"));
    org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(List.of(
        org.apache.iceberg.types.Types.NestedField.required(1, "id", org.apache.iceberg.types.Types.LongType.get()),
        org.apache.iceberg.types.Types.NestedField.optional(2, "note", org.apache.iceberg.types.Types.StringType.get())), java.util.Set.of(1));
    warehouse.catalog().buildTable(org.apache.iceberg.catalog.TableIdentifier.parse("bench.index10m"), schema).create();
    Table table = warehouse.catalog().loadTable(org.apache.iceberg.catalog.TableIdentifier.parse("bench.index10m"));
    TableSpec spec = new TableSpec(warehouse.spec(), "bench.index10m", List.of(), List.of(), 2, WriteMode.POSITION_DELETES, Map.of(), Map.of());
    TableLayout layout = TableLayout.of(table, spec);
    for (int start = 0; start < keys; start += 1_000_000) {
      List<Object[]> rows = new java.util.ArrayList<>(1_000_000);
      for (long id = start; id < Math.min(keys, start + 1_000_000); id++) {
        rows.add(new Object[] {id * 7 + 3, "n"});
      }
      org.apache.iceberg.AppendFiles append = table.newAppend();
      dev.floe.worker.apply.EqualityDeltaWriter.writeRows(table, layout, rows).forEach(append::appendFile);
      append.commit();
    }
    table.refresh();
    long snapshot = table.currentSnapshot().snapshotId();
    long before = usedHeap();
    long t0 = System.nanoTime();
    PrimaryKeyIndex index = PrimaryKeyIndex.build(table, snapshot, layout);
    double build = (System.nanoTime() - t0) / 1e9;
    long after = usedHeap();
    PersistedIndex.save(table, index, layout);
    table.refresh();
    long t1 = System.nanoTime();
    PrimaryKeyIndex loaded = PersistedIndex.loadNewest(table, snapshot, layout);
    double load = (System.nanoTime() - t1) / 1e9;
    assertThat(loaded.size()).isEqualTo(keys);
    System.out.printf(Locale.ROOT, "primary-key index, %,d keys (long): build %.1f s; heap ~%d bytes/key; load %.1f s%n",
        keys, build, (after - before) / keys, load);
  }

  private String run(int keys) {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = new SinkSpec(new SourceSpec("unused:9092", List.of(OrdersWorkload.TOPIC), null, "floe-bench", null, null),
        new TableSpec(warehouse.spec(), "bench.index_orders", List.of(), List.of(), 3, WriteMode.POSITION_DELETES, Map.of(), Map.of()),
        null, null, null);
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    OrdersWorkload workload = new OrdersWorkload(keys);
    int batch = Math.min(100_000, keys);
    while (workload.current().size() < keys * 0.9) {
      engine.apply(workload.nextBatch(batch), DeadLetters.DISCARD);
    }
    Table table = engine.table();
    TableLayout layout = TableLayout.of(table, sink.table());
    long snapshot = table.currentSnapshot().snapshotId();

    long before = usedHeap();
    long t0 = System.nanoTime();
    PrimaryKeyIndex index = PrimaryKeyIndex.build(table, snapshot, layout);
    double buildSeconds = (System.nanoTime() - t0) / 1e9;
    long after = usedHeap();
    assertThat(index.size()).isEqualTo(workload.current().size());
    PersistedIndex.save(table, index, layout);
    table.refresh();
    long persistedBytes = table.statisticsFiles().stream().filter(f -> f.snapshotId() == snapshot).mapToLong(f -> f.fileSizeInBytes()).sum();
    long t1 = System.nanoTime();
    PrimaryKeyIndex loaded = PersistedIndex.loadNewest(table, snapshot, layout);
    double loadSeconds = (System.nanoTime() - t1) / 1e9;
    assertThat(loaded.size()).isEqualTo(index.size());
    return String.format(Locale.ROOT,
        "primary-key index, %,d keys (long): build from key columns %.2f s; heap ~%d bytes/key; persisted %,d bytes (%.1f bytes/key); load %.2f s",
        index.size(), buildSeconds, (after - before) / Math.max(1, index.size()), persistedBytes,
        (double) persistedBytes / index.size(), loadSeconds);
  }

  private static long usedHeap() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }
}
