package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.bench.OrdersWorkload;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.testing.LocalWarehouse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A delete file that applies to many data files is loaded once for all of them, and the rows read stay the same. */
class DeleteCacheTest {
  @TempDir Path dir;

  @Test
  void equalityDeletesAreLoadedOncePerFileAndHideTheSameRows() throws IOException {
    // given a table after 6 CDC batches in equality mode: each batch's deletes apply to every older data file
    Table table = tableAfterBatches(WriteMode.EQUALITY_DELETES, 6);
    List<FileScanTask> tasks = tasks(table);
    Set<String> deleteFiles = new HashSet<>();
    int applications = 0;
    for (FileScanTask t : tasks) {
      applications += t.deletes().size();
      t.deletes().forEach(d -> deleteFiles.add(d.location()));
    }
    assertThat(applications).as("delete files apply to several data files").isGreaterThan(deleteFiles.size());

    // when every data file is read through one cache, and without one
    DeleteCache cache = new DeleteCache(Long.MAX_VALUE);
    Map<Long, Record> cached = liveRows(table, tasks, cache);
    Map<Long, Record> uncached = liveRows(table, tasks, null);

    // then the rows are the same, the source's, and each delete file was loaded once
    assertThat(cached.keySet()).isEqualTo(uncached.keySet()).isEqualTo(workload.current().keySet());
    cached.forEach((id, r) -> assertThat(r.getField("amount")).isEqualTo(uncached.get(id).getField("amount")));
    assertThat(cache.loads()).isEqualTo(deleteFiles.size());
  }

  @Test
  void pastItsBudgetTheCacheLoadsPerReadAndStaysExact() throws IOException {
    // given position deletes (format 2) and a cache with no room
    Table table = tableAfterBatches(WriteMode.POSITION_DELETES, 5);
    List<FileScanTask> tasks = tasks(table);
    DeleteCache full = new DeleteCache(0);

    // when every data file is read through it
    Map<Long, Record> rows = liveRows(table, tasks, full);

    // then nothing was kept, and the rows are the source's
    assertThat(full.loads()).isZero();
    assertThat(rows.keySet()).isEqualTo(workload.current().keySet());
  }

  private OrdersWorkload workload;

  private Table tableAfterBatches(WriteMode mode, int batches) {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = new SinkSpec(new SourceSpec("unused:9092", List.of(OrdersWorkload.TOPIC), null, "floe-test", null, null),
        new TableSpec(warehouse.spec(), "shop.orders", List.of(), List.of(), 2, mode, Map.of(), Map.of()), null, null, null);
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    workload = new OrdersWorkload(500);
    for (int b = 0; b < batches; b++) {
      engine.apply(workload.nextBatch(400), DeadLetters.DISCARD);
    }
    return engine.table();
  }

  private static List<FileScanTask> tasks(Table table) throws IOException {
    List<FileScanTask> out = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      planned.forEach(out::add);
    }
    return out;
  }

  private static Map<Long, Record> liveRows(Table table, List<FileScanTask> tasks, DeleteCache cache) throws IOException {
    Map<Long, Record> rows = new HashMap<>();
    for (FileScanTask t : tasks) {
      try (CloseableIterable<Record> live = LiveRows.read(table, t, table.schema(), cache)) {
        for (Record r : live) {
          assertThat(rows.put((Long) r.getField("id"), r.copy())).as("no key twice").isNull();
        }
      }
    }
    return rows;
  }
}
