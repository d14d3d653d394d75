package dev.floe.worker.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.testing.LocalWarehouse;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;

/**
 * Plays a script into a sink batch by batch and checks, after every batch, that the table equals
 * the model, that it holds the offsets of everything consumed, and that replaying the batch (a
 * crash between the Iceberg commit and the Kafka commit) changes nothing.
 */
public final class ScriptPlayer {
  private ScriptPlayer() {}

  public static void play(Script script, SinkSpec sink, Catalog catalog) {
    SinkEngine engine = new SinkEngine(sink, catalog);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource();
    for (List<Step> batch : script.batches()) {
      List<RawRecord> records = source.records(batch, model);
      BatchResult result = engine.apply(records, DeadLetters.DISCARD);
      assertThat(result.rejected()).as("rejected records").isEmpty();

      Table table = engine.table();
      if (table == null) {
        assertThat(model.expected()).isEmpty(); // only truncates so far
        continue;
      }
      assertThat(actual(table)).as("table after batch %s", batch).isEqualTo(model.expected());
      assertThat(OffsetLedger.read(table, sink.sinkId()).next()).isEqualTo(source.nextOffsets());
      if (sink.table().writeMode() == WriteMode.POSITION_DELETES) {
        assertThat(table.currentSnapshot().summary().getOrDefault("total-equality-deletes", "0"))
            .as("no equality deletes in the position-deletes mode").isEqualTo("0");
      }

      Long before = table.currentSnapshot().snapshotId();
      BatchResult replay = engine.apply(records, DeadLetters.DISCARD);
      assertThat(replay.alreadyApplied()).isEqualTo(records.size());
      table.refresh();
      assertThat(table.currentSnapshot().snapshotId()).isEqualTo(before);
    }
  }

  /** The table as the model sees rows: by key, values normalised. */
  public static Map<Long, Map<String, Object>> actual(Table table) {
    Map<Long, Map<String, Object>> out = new TreeMap<>();
    for (Map<String, Object> row : LocalWarehouse.rows(table)) {
      Map<String, Object> n = new TreeMap<>();
      row.forEach((k, v) -> n.put(k, OrdersModel.normalise(v)));
      n.remove(TableLayout.LSN_COLUMN); // Floe's bookkeeping, not a source column
      n.putIfAbsent("extra", null); // before the schema change the table has no such column
      Long id = (Long) n.get("id");
      if (out.put(id, n) != null) {
        throw new AssertionError("key " + id + " appears twice in the table");
      }
    }
    return out;
  }
}
