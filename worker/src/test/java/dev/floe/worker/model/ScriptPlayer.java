package dev.floe.worker.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.ChangeDecoders;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.testing.LocalWarehouse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.common.TopicPartition;

/**
 * Plays a script into a sink delivery by delivery. Each batch of the source is delivered as its
 * {@link Delivery} says: partitions may lag (their newest records held back into later
 * deliveries, always in offset order) and the engine may be replaced by a new instance between
 * deliveries (a crash: state must come from the table). After every delivery it checks that the
 * table holds the offsets of everything delivered, that replaying the delivery (a crash between
 * the Iceberg commit and the Kafka commit) changes nothing, and, whenever every partition has been
 * delivered up to the same step of the history, that the table equals the model as of that step.
 * Whatever is still held back after the last batch is delivered at the end, so the table is
 * always checked against the whole history.
 */
public final class ScriptPlayer {
  private ScriptPlayer() {}

  /** A produced record and the step of the history it belongs to. */
  private record Produced(RawRecord record, int step) {}

  public static void play(Script script, SinkSpec sink, Catalog catalog) {
    new Run(sink, catalog, UnaryOperator.identity(), ChangeDecoders.JSON).play(script);
  }

  /**
   * As {@link #play(Script, SinkSpec, Catalog)}, each record rewritten by {@code wire} (into
   * another wire format) and decoded by {@code decoders}.
   */
  public static void play(Script script, SinkSpec sink, Catalog catalog, UnaryOperator<RawRecord> wire, ChangeDecoders decoders) {
    new Run(sink, catalog, wire, decoders).play(script);
  }

  private static final class Run {
    private final SinkSpec sink;
    private final Catalog catalog;
    private final OrdersModel model = new OrdersModel();
    private final OrdersSource source = new OrdersSource();
    /** The model after {@code i} steps, at index {@code i}. */
    private final List<Map<Long, Map<String, Object>>> modelAfter = new ArrayList<>();
    private final Map<Integer, Deque<Produced>> pending = new TreeMap<>();
    private final Map<TopicPartition, Long> deliveredUpTo = new HashMap<>();
    private int steps;
    private int newestDeliveredStep = -1;
    private SinkEngine engine;
    private final UnaryOperator<RawRecord> wire;
    private final ChangeDecoders decoders;

    Run(SinkSpec sink, Catalog catalog, UnaryOperator<RawRecord> wire, ChangeDecoders decoders) {
      this.sink = sink;
      this.catalog = catalog;
      this.wire = wire;
      this.decoders = decoders;
      this.engine = new SinkEngine(sink, catalog, decoders);
      modelAfter.add(model.expected());
    }

    void play(Script script) {
      for (int i = 0; i < script.batches().size(); i++) {
        for (Step step : script.batches().get(i)) {
          for (RawRecord r : source.records(step, model)) {
            pending.computeIfAbsent(r.partition(), p -> new ArrayDeque<>()).add(new Produced(wire.apply(r), steps));
          }
          steps++;
          modelAfter.add(model.expected());
        }
        deliver(script.deliveries().get(i), "batch " + i + " " + script.batches().get(i));
      }
      if (pending.values().stream().anyMatch(q -> !q.isEmpty())) {
        deliver(Delivery.lockStep(), "the partitions held back until the end");
      }
      assertThat(deliveredUpTo).as("everything delivered").isEqualTo(source.nextOffsets());
    }

    private void deliver(Delivery delivery, String what) {
      if (delivery.restartBefore()) {
        engine = new SinkEngine(sink, catalog, decoders);
      }
      List<Produced> batch = new ArrayList<>();
      pending.forEach((partition, queue) -> {
        int n = delivery.delivers(partition, queue.size());
        for (int k = 0; k < n; k++) {
          batch.add(queue.poll());
        }
      });
      if (batch.isEmpty()) {
        return;
      }
      batch.sort(Comparator.comparingInt(Produced::step)); // as produced; each partition stays in offset order
      List<RawRecord> records = batch.stream().map(Produced::record).toList();
      for (Produced p : batch) {
        deliveredUpTo.put(p.record().topicPartition(), p.record().offset() + 1);
        newestDeliveredStep = Math.max(newestDeliveredStep, p.step());
      }
      String as = what + " delivered as " + delivery + ": " + records;

      BatchResult result = engine.apply(records, DeadLetters.DISCARD);
      assertThat(result.rejected()).as("rejected records of %s", as).isEmpty();
      Table table = engine.table();
      Integer cut = consistentCut();
      if (table == null) {
        if (cut != null) {
          assertThat(modelAfter.get(cut)).as("no table yet after %s", as).isEmpty(); // only truncates so far
        }
        return;
      }
      Map<Long, Map<String, Object>> rows = actual(table); // never a key twice, consistent or not
      if (cut != null) {
        assertThat(rows).as("table after %s (every partition delivered up to step %d)", as, cut)
            .isEqualTo(modelAfter.get(cut));
      }
      assertThat(OffsetLedger.read(table, sink.sinkId()).next()).as("offsets after %s", as).isEqualTo(deliveredUpTo);
      if (sink.table().writeMode() == WriteMode.POSITION_DELETES) {
        assertThat(table.currentSnapshot().summary().getOrDefault("total-equality-deletes", "0"))
            .as("no equality deletes in the position-deletes mode").isEqualTo("0");
      }

      Long before = table.currentSnapshot().snapshotId();
      BatchResult replay = engine.apply(records, DeadLetters.DISCARD);
      assertThat(replay.alreadyApplied()).as("replay of %s", as).isEqualTo(records.size());
      table.refresh();
      assertThat(table.currentSnapshot().snapshotId()).isEqualTo(before);
    }

    /**
     * The number of steps the engine has seen all of and nothing after, when there is such a point
     * (every partition delivered up to the same step); null while some partition lags behind
     * another.
     */
    private Integer consistentCut() {
      int oldestPending = pending.values().stream().filter(q -> !q.isEmpty()).mapToInt(q -> q.peek().step())
          .min().orElse(steps);
      return newestDeliveredStep < oldestPending ? oldestPending : null;
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
