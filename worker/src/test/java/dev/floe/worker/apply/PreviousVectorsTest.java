package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.maintain.Compactor;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The previous deletion vectors of the files a batch deletes from, read from the delete manifests
 * alone, are the ones a scan of the snapshot matches to those files, at every snapshot of a table
 * that replaced vectors commit after commit and was compacted in between.
 */
class PreviousVectorsTest {
  @TempDir Path dir;

  private final OrdersModel model = new OrdersModel();
  private final OrdersSource source = new OrdersSource();
  private final List<Step> steps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(400).sample();

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void theDeleteManifestsGiveEachFileTheVectorsAScanGivesIt(boolean partitioned) {
    // given a v3 table written in eight batches, compacted after the fourth
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "dv.orders" + (partitioned ? "_by_region" : ""), 3, partitioned,
        WriteMode.POSITION_DELETES);
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    for (int b = 0; b < 8; b++) {
      engine.apply(source.records(steps.subList(b * 50, (b + 1) * 50), model), DeadLetters.DISCARD);
      if (b == 3) {
        new Compactor(engine.table(), sink.sinkId(), new CompactionSpec(null, null, 2, "5d", 10, "5d", null, true, false, false, false)).run();
      }
    }
    Table table = engine.table();
    table.refresh();

    int withVectors = 0;
    for (Snapshot snapshot : table.snapshots()) {
      // when the vectors of the snapshot's live data files are looked up both ways
      Map<String, Set<String>> scanned = locations(PositionDeltaWriter.previousVectorsByScan(table, snapshot.snapshotId()));
      Set<String> live = liveDataFiles(table, snapshot.snapshotId());
      Map<String, Set<String>> read = locations(PositionDeltaWriter.previousVectors(table, snapshot.snapshotId(), live));

      // then they are the same, file by file
      assertThat(read).as("snapshot %d", snapshot.snapshotId()).isEqualTo(scanned);
      withVectors += scanned.isEmpty() ? 0 : 1;
    }
    assertThat(withVectors).as("snapshots with deletion vectors to compare").isGreaterThanOrEqualTo(4);
  }

  @Test
  void onlyTheFilesAskedForAreLookedUp() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "dv.asked", 3, false, WriteMode.POSITION_DELETES);
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    for (int b = 0; b < 4; b++) {
      engine.apply(source.records(steps.subList(b * 50, (b + 1) * 50), model), DeadLetters.DISCARD);
    }
    Table table = engine.table();
    long current = table.currentSnapshot().snapshotId();
    Map<String, Set<String>> all = locations(PositionDeltaWriter.previousVectorsByScan(table, current));
    assertThat(all).isNotEmpty();
    String one = all.keySet().iterator().next();

    assertThat(locations(PositionDeltaWriter.previousVectors(table, current, Set.of(one)))).isEqualTo(Map.of(one, all.get(one)));
    assertThat(PositionDeltaWriter.previousVectors(table, current, Set.of())).isEmpty();
  }

  private static Map<String, Set<String>> locations(Map<String, List<DeleteFile>> vectors) {
    Map<String, Set<String>> out = new TreeMap<>();
    vectors.forEach((file, deletes) -> out.put(file, deletes.stream().map(DeleteFile::location).collect(Collectors.toCollection(TreeSet::new))));
    return out;
  }

  private static Set<String> liveDataFiles(Table table, long snapshotId) {
    Set<String> out = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).planFiles()) {
      tasks.forEach(t -> out.add(t.file().location()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }
}
