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
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.StatisticsFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The primary-key index persisted beside the table: loaded on restart, caught up, never trusted blindly. */
class PrimaryKeyIndexTest {
  @TempDir Path dir;

  private final OrdersModel model = new OrdersModel();
  private final OrdersSource source = new OrdersSource();
  private final List<Step> steps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(400).sample();

  @Test
  void aRestartedWorkerLoadsThePersistedIndexAndCatchesUpOverLaterCommitsAndACompaction() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "pk.orders", 3, false, WriteMode.POSITION_DELETES);
    SinkEngine first = new SinkEngine(sink, warehouse.catalog());
    for (int b = 0; b < 4; b++) {
      first.apply(source.records(steps.subList(b * 50, (b + 1) * 50), model), DeadLetters.DISCARD);
    }
    assertThat(first.indexBuildsAndLoads()).containsExactly(1, 0); // built once, then kept current
    new Compactor(first.table(), sink.sinkId(), new CompactionSpec(null, null, 2, "5d", 10, "5d", null, true, false, false, false)).run();

    SinkEngine restarted = new SinkEngine(sink, warehouse.catalog());
    for (int b = 4; b < 8; b++) {
      restarted.apply(source.records(steps.subList(b * 50, (b + 1) * 50), model), DeadLetters.DISCARD);
    }

    assertThat(restarted.indexBuildsAndLoads()).containsExactly(0, 1); // loaded the stale copy and caught up
    assertThat(ScriptPlayer.actual(restarted.table())).isEqualTo(model.expected());
  }

  @Test
  void aCorruptedPersistedIndexIsDetectedAndRebuilt() throws Exception {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "pk.corrupt", 2, true, WriteMode.POSITION_DELETES);
    SinkEngine first = new SinkEngine(sink, warehouse.catalog());
    for (int b = 0; b < 3; b++) {
      first.apply(source.records(steps.subList(b * 50, (b + 1) * 50), model), DeadLetters.DISCARD);
    }
    List<StatisticsFile> persisted = first.table().statisticsFiles();
    assertThat(persisted).isNotEmpty();
    for (StatisticsFile f : persisted) {
      Path file = Path.of(f.path().replaceFirst("^file:", ""));
      byte[] bytes = Files.readAllBytes(file);
      bytes[bytes.length / 2] ^= 0x5A; // one flipped byte inside the blob
      Files.write(file, bytes);
    }

    SinkEngine restarted = new SinkEngine(sink, warehouse.catalog());
    restarted.apply(source.records(steps.subList(150, 250), model), DeadLetters.DISCARD);

    assertThat(restarted.indexBuildsAndLoads()).containsExactly(1, 0);
    assertThat(ScriptPlayer.actual(restarted.table())).isEqualTo(model.expected());
  }
}
