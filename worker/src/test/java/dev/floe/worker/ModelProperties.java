package dev.floe.worker;

import dev.floe.worker.config.WriteMode;
import dev.floe.worker.fold.Unchanged;
import dev.floe.worker.model.Delivery;
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
import net.jqwik.api.constraints.IntRange;
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
    dev.floe.worker.testing.TempDirs.deleteOrWarn(dir);
  }

  @Provide
  Arbitrary<Script> scripts() {
    return OrdersScripts.scripts();
  }

  @Provide
  Arbitrary<Script> laggingScripts() {
    return OrdersScripts.laggingScripts();
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

  /**
   * Partitions lag behind each other and engines restart between deliveries: a key move's create
   * half can be applied batches before its delete half, or after, and the table must still equal
   * the source whenever every partition has been delivered up to the same point. More tries than
   * the others, though each history here is the slowest kind (several engines, restarts, redeliveries);
   * the other properties soak with {@code -Djqwik.tries.default=500}.
   */
  @Property(tries = 50)
  void laggingPartitionsAndRestarts(
      @ForAll("laggingScripts") Script script, @ForAll @IntRange(min = 2, max = 3) int formatVersion, @ForAll boolean partitioned) {
    play(script, formatVersion, partitioned);
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

  // Key moves whose halves land in different partitions: ids 1 and 3 hash to partition 1, ids 2 and 4
  // to partition 0 (OrdersTable.partitionOf). Every note is TOASTed: NOTE_UNCHANGED is the placeholder
  // Debezium writes for it when an UPDATE leaves it alone.

  @Example
  void theOldKeysLastUpdateBeforeTheMoveIsWhatTheMovedRowKeeps() {
    Script script = new Script(List.of(
        List.of(new Step.Upsert(1, note("first"))),
        List.of(new Step.Upsert(1, note("second")), // the old key changes its TOASTed note,
            new Step.Rekey(1, 2, NOTE_UNCHANGED))));     // then moves in the same batch as the d
    playInEveryLayout(script);
  }

  @Example
  void aKeyDeletedReinsertedAndMovedAgainInOneBatchGivesEachMovedRowItsOwnValue() {
    Script script = new Script(List.of(List.of(
        new Step.Upsert(1, note("first")),
        new Step.Rekey(1, 2, NOTE_UNCHANGED),   // 2 takes "first"
        new Step.Upsert(1, note("second")),     // the old key is inserted again,
        new Step.Delete(1),                     // deleted,
        new Step.Upsert(1, note("third")),      // inserted again,
        new Step.Rekey(1, 4, NOTE_UNCHANGED))));  // and moved again: 4 takes "third"
    playInEveryLayout(script);
  }

  @Example
  void theDeleteHalfCommittedBatchesBeforeTheCreateHalfStillGivesTheValueAsOfTheMove() {
    Script script = new Script(
        List.of(
            List.of(new Step.Upsert(1, note("first"))),
            List.of(new Step.Upsert(1, note("second")), new Step.Rekey(1, 2, NOTE_UNCHANGED)),
            List.of(new Step.Upsert(1, note("reused")))), // the old key is used again before the c arrives
        List.of(
            Delivery.lockStep(),
            Delivery.holdingBack(0),   // the new key's partition lags: u(1), d(1) committed, c(2) not
            Delivery.lockStep()));     // c(2) arrives after key 1 was deleted and inserted again
    playInEveryLayout(script);
  }

  /** Shrunk from the lagging property (seed -2126305811974606254): the c alone, after its d was committed by another engine. */
  @Example
  void aCreateHalfArrivingAfterItsDeleteHalfWasCommittedTakesTheValueTheOldKeyHadThen() {
    Script script = new Script(
        List.of(
            List.of(new Step.Upsert(1, note("first"))),
            List.of(new Step.Rekey(1, 2, NOTE_UNCHANGED))),
        List.of(
            Delivery.holdingBack(0, 1).andHoldingBack(1, 1), // nothing yet
            Delivery.afterRestart().andHoldingBack(0, Delivery.ALL))); // u(1), d(1) committed; c(2) at the end: "first", not NULL
    playInEveryLayout(script);
  }

  @Example
  void theCreateHalfCommittedBeforeItsDeleteHalfIsRightOnceTheDeleteArrives() {
    Script script = new Script(
        List.of(
            List.of(new Step.Upsert(1, note("first"))),
            List.of(new Step.Upsert(1, note("second")), new Step.Rekey(1, 2, NOTE_UNCHANGED)),
            List.of()),
        List.of(
            Delivery.lockStep(),
            Delivery.holdingBack(1),   // the old key's partition lags: c(2) committed, u(1) and d(1) not
            Delivery.lockStep()));     // 2 may have shown "first" until now; from here on "second"
    playInEveryLayout(script);
  }

  @Example
  void anEngineRestartBetweenTheCreateHalfAndTheDeleteHalfLosesNothing() {
    Script createFirst = new Script(
        List.of(
            List.of(new Step.Upsert(1, note("first"))),
            List.of(new Step.Upsert(1, note("second")), new Step.Rekey(1, 2, NOTE_UNCHANGED)),
            List.of()),
        List.of(Delivery.lockStep(), Delivery.holdingBack(1), Delivery.afterRestart()));
    Script deleteFirst = new Script(
        List.of(
            List.of(new Step.Upsert(1, note("first"))),
            List.of(new Step.Upsert(1, note("second")), new Step.Rekey(1, 2, NOTE_UNCHANGED)),
            List.of()),
        List.of(Delivery.lockStep(), Delivery.holdingBack(0), Delivery.afterRestart()));
    playInEveryLayout(createFirst);
    playInEveryLayout(deleteFirst);
  }

  @Example
  void theNewKeysOwnUpdateBeforeTheDeleteHalfArrivesWins() {
    Script script = new Script(
        List.of(
            List.of(new Step.Upsert(1, note("first"))),
            List.of(new Step.Upsert(1, note("second")), new Step.Rekey(1, 2, NOTE_UNCHANGED),
                new Step.Upsert(2, note("explicit"))), // the moved row's note set explicitly
            List.of()),
        List.of(
            Delivery.lockStep(),
            Delivery.holdingBack(1),   // c(2) and u(2) committed before d(1)
            Delivery.lockStep()));     // d(1) arrives: "explicit" stays
    playInEveryLayout(script);
  }

  @Example
  void aRowMovedOnBeforeItsFirstDeleteHalfArrivesKeepsTheValueFromWhereItStarted() {
    Script script = new Script(
        List.of(
            List.of(new Step.Upsert(1, note("first"))),
            List.of(new Step.Upsert(1, note("second")), new Step.Rekey(1, 2, NOTE_UNCHANGED),
                new Step.Rekey(2, 4, NOTE_UNCHANGED)), // 1 -> 2 -> 4, the note never changed
            List.of()),
        List.of(
            Delivery.lockStep(),
            Delivery.holdingBack(1),   // c(2), d(2), c(4) committed; u(1), d(1) not yet
            Delivery.lockStep()));     // 4 ends with "second"
    playInEveryLayout(script);
  }

  private static final Map<String, Object> NOTE_UNCHANGED = note(Unchanged.VALUE);

  /** A row of region "eu" (one Iceberg partition) whose TOASTed note is {@code note}. */
  private static Map<String, Object> note(Object note) {
    Map<String, Object> values = new HashMap<>();
    values.put("note", note);
    values.put("region", "eu");
    values.put("qty", 1);
    return values;
  }

  private void playInEveryLayout(Script script) {
    for (boolean partitioned : new boolean[] {false, true}) {
      play(script, 2, partitioned);
      play(script, 3, partitioned);
    }
  }

  private void play(Script script, int formatVersion, boolean partitioned) {
    String table = "props.orders_" + TABLES.incrementAndGet();
    try {
      ScriptPlayer.play(script, OrdersTable.sink(warehouse.spec(), table, formatVersion, partitioned, mode()), warehouse.catalog());
    } catch (AssertionError e) {
      throw new AssertionError("format v" + formatVersion + (partitioned ? ", partitioned by region" : ", unpartitioned")
          + ", " + mode() + ": " + e.getMessage(), e);
    }
  }
}
