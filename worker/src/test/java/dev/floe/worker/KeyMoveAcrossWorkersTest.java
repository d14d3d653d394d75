package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.fold.Unchanged;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Table;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two halves of a primary-key update consumed by two workers of one sink, each committing while
 * the other plans: the moved row ends with the TOASTed value the old key had just before the update,
 * and nothing waits in the ledger afterwards.
 */
class KeyMoveAcrossWorkersTest {
  @TempDir Path dir;

  private final DebeziumEnvelopes orders = DebeziumEnvelopes.forTopic(OrdersTable.TOPIC).columns(OrdersTable.columns(false)).key("id");

  @ParameterizedTest
  @EnumSource(WriteMode.class)
  void theDeleteHalfCommitsWhileTheCreateHalfIsPlanned(WriteMode mode) {
    race(mode, true);
  }

  @ParameterizedTest
  @EnumSource(WriteMode.class)
  void theCreateHalfCommitsWhileTheDeleteHalfIsPlanned(WriteMode mode) {
    race(mode, false);
  }

  @org.junit.jupiter.api.Test
  void aCreateAppliedBeforeItsDeleteShowsTheOldKeysValueUntilTheDeleteSettlesIt() throws Exception {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "moves.waiting", 3, false, WriteMode.POSITION_DELETES);
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    engine.apply(List.of(orders.insert(1, row(1, "first note"))), DeadLetters.DISCARD);
    RawRecord noteChanged = orders.update(1, row(1, "second note"));
    List<RawRecord> keyUpdate = orders.keyUpdate(1, Map.of("id", 1L), 0, row(2, Unchanged.VALUE));

    // when the create half is applied while the old key's partition lags
    engine.apply(List.of(keyUpdate.get(2)), DeadLetters.DISCARD);

    // then the moved row shows the old key as far as it was read, and the wait is visible
    assertThat(notes(engine.table())).isEqualTo(Map.of(1L, "first note", 2L, "first note"));
    java.nio.file.Path config = dir.resolve("sink.json");
    SinkSpec valid = new SinkSpec(sink.source(), sink.table(), sink.commit(), new dev.floe.worker.config.DeadLetterSpec("floe.dlq.orders"),
        sink.onError(), sink.compaction());
    java.nio.file.Files.writeString(config, new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(valid));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.PrintStream stdout = System.out;
    System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      assertThat(new picocli.CommandLine(new dev.floe.worker.cli.Floe()).execute("offsets", "-c", config.toString())).isZero();
    } finally {
      System.setOut(stdout);
    }
    assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("key changes waiting for their other half: 0 deletes", "1 creates", "1 with values still to settle");

    // and when the old key's partition catches up (after a restart), the delete half settles the row
    SinkEngine restarted = new SinkEngine(sink, warehouse.catalog());
    restarted.apply(List.of(noteChanged, keyUpdate.get(0), keyUpdate.get(1)), DeadLetters.DISCARD);
    assertThat(notes(restarted.table())).isEqualTo(Map.of(2L, "second note"));
    assertThat(restarted.table().currentSnapshot().summary()).doesNotContainKey(OffsetLedger.movesKey(sink.sinkId()));
  }

  private static Map<Long, Object> notes(Table table) {
    Map<Long, Object> notes = new HashMap<>();
    LocalWarehouse.rows(table).forEach(r -> notes.put((Long) r.get("id"), r.get("note")));
    return notes;
  }

  private void race(WriteMode mode, boolean deleteHalfFirst) {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "moves.race_" + mode.name().toLowerCase() + "_" + deleteHalfFirst, 3, false, mode);
    // given key 1 (partition 1) stored with its first note
    new SinkEngine(sink, warehouse.catalog()).apply(List.of(orders.insert(1, row(1, "first note"))), DeadLetters.DISCARD);

    // when the source changes the note, then moves the row to key 2 (partition 0), note unchanged
    RawRecord noteChanged = orders.update(1, row(1, "second note"));
    List<RawRecord> keyUpdate = orders.keyUpdate(1, Map.of("id", 1L), 0, row(2, Unchanged.VALUE));
    List<RawRecord> oldKeysPartition = List.of(noteChanged, keyUpdate.get(0), keyUpdate.get(1));
    List<RawRecord> newKeysPartition = List.of(keyUpdate.get(2));
    // and each half goes to its own worker, one committing between the other's planning and commit
    SinkEngine oldKeysWorker = new SinkEngine(sink, warehouse.catalog());
    SinkEngine newKeysWorker = new SinkEngine(sink, warehouse.catalog());
    SinkEngine planning = deleteHalfFirst ? newKeysWorker : oldKeysWorker;
    SinkEngine committing = deleteHalfFirst ? oldKeysWorker : newKeysWorker;
    List<RawRecord> planned = deleteHalfFirst ? newKeysPartition : oldKeysPartition;
    List<RawRecord> slipsIn = deleteHalfFirst ? oldKeysPartition : newKeysPartition;
    AtomicBoolean once = new AtomicBoolean();
    planning.beforeCommit(() -> {
      if (once.compareAndSet(false, true)) {
        committing.apply(slipsIn, DeadLetters.DISCARD);
      }
    });
    BatchResult result = planning.apply(planned, DeadLetters.DISCARD);

    // then the race was noticed, and the moved row holds the note as it was just before the move
    assertThat(result.commitAttempts()).as("re-planned after the other half committed").isGreaterThan(1);
    Table table = warehouse.catalog().loadTable(org.apache.iceberg.catalog.TableIdentifier.parse(sink.table().name()));
    Map<Long, Object> notes = new HashMap<>();
    LocalWarehouse.rows(table).forEach(r -> notes.put((Long) r.get("id"), r.get("note")));
    assertThat(notes).isEqualTo(Map.of(2L, "second note"));
    assertThat(table.currentSnapshot().summary()).doesNotContainKey(OffsetLedger.movesKey(sink.sinkId()));
  }

  private static Map<String, Object> row(long id, Object note) {
    Map<String, Object> row = new HashMap<>();
    row.put("id", id);
    row.put("region", "eu");
    row.put("qty", 1);
    row.put("note", note);
    return row;
  }
}
