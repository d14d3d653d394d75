package dev.floe.worker;

import dev.floe.worker.config.WriteMode;
import dev.floe.worker.fold.Unchanged;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.Script;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The table equals the source after any history of inserts, updates, deletes, re-inserts, TOAST
 * placeholders, primary-key changes, partition moves, truncates and a schema change, in formats 2
 * and 3, partitioned or not. Each write mode runs the same properties (a subclass per mode).
 */
abstract class ModelProperties {
  protected abstract WriteMode mode();

  private static final AtomicInteger TABLES = new AtomicInteger();
  private static Path dir;
  private static LocalWarehouse warehouse;

  @BeforeContainer
  static void warehouse() throws IOException {
    dir = Files.createTempDirectory("floe-props");
    warehouse = new LocalWarehouse(dir);
  }

  @AfterContainer
  static void cleanup() {
    try {
      dev.floe.worker.testing.TempDirs.delete(dir);
    } catch (IOException e) {
      System.err.println("left " + dir + " behind: " + e); // a failed property can leave a table being written
    }
  }

  @Provide
  Arbitrary<Script> scripts() {
    return OrdersScripts.scripts();
  }

  @Property
  void formatV2Unpartitioned(@ForAll("scripts") Script script) {
    play(script, 2, false);
  }

  @Property
  void formatV2PartitionedByRegion(@ForAll("scripts") Script script) {
    play(script, 2, true);
  }

  @Property
  void formatV3Unpartitioned(@ForAll("scripts") Script script) {
    play(script, 3, false);
  }

  @Property
  void formatV3PartitionedByRegion(@ForAll("scripts") Script script) {
    play(script, 3, true);
  }

  /** Found by the v2 property (seed -3888729603317853595): the unchanged value follows the row through both moves. */
  @Example
  void aRowMovedTwiceInOneBatchKeepsItsUnchangedValuesFromWhereItStarted() {
    Map<String, Object> first = new HashMap<>(Map.of("note", "a", "region", "eu", "qty", 1));
    Map<String, Object> noteUnchanged = new HashMap<>(Map.of("note", Unchanged.VALUE, "region", "eu", "qty", 2));
    Script script = new Script(List.of(List.of(
        new Step.Upsert(1, first),
        new Step.Rekey(1, 6, noteUnchanged),   // UPDATE ... SET id = 6: note is TOASTed, unchanged
        new Step.Upsert(1, first),             // the old key is used again
        new Step.Rekey(6, 3, noteUnchanged)))); // and the row moves on, note still unchanged
    for (boolean partitioned : new boolean[] {false, true}) {
      play(script, 2, partitioned);
      play(script, 3, partitioned);
    }
  }

  private void play(Script script, int formatVersion, boolean partitioned) {
    String table = "props.orders_" + TABLES.incrementAndGet();
    ScriptPlayer.play(script, OrdersTable.sink(warehouse.spec(), table, formatVersion, partitioned, mode()), warehouse.catalog());
  }
}
