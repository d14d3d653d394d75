package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.Script;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.iceberg.Table;

/**
 * Batches applied packed (the position mode) leave the table exactly as the general fold and
 * resolver leave it, row for row and LSN for LSN, after any history the model properties play:
 * plain upserts and deletes (applied packed), and TOAST placeholders, primary-key changes,
 * truncates and a schema change (which send their batch, packed events unpacked, down the general
 * path); with every merge rule {@code last}, or with each rule the packed resolver combines on a
 * column of its own ({@link #PACKED_RULES}).
 */
class PackedBatchesPropertiesTest {
  private static final AtomicInteger TABLES = new AtomicInteger();
  /**
   * Every rule the packed resolver combines, each on a column of the orders table that the merge
   * state holds: a sum of ints (longs once the schema widens it), the last non-null decimal, the
   * largest and smallest long, the first string; the timestamp keeps {@code last}.
   */
  static final Map<String, MergeRule> PACKED_RULES = Map.of(
      "qty", MergeRule.SUM, "price", MergeRule.LAST_NON_NULL, "hi", MergeRule.MAX, "lo", MergeRule.MIN,
      "note", MergeRule.FIRST, "extra", MergeRule.LAST_NON_NULL);
  private static Path dir;
  private static LocalWarehouse warehouse;

  @BeforeContainer
  static void warehouse() throws IOException {
    dir = Files.createTempDirectory("floe-packed");
    warehouse = new LocalWarehouse(dir);
  }

  @AfterContainer
  static void cleanup() {
    dev.floe.worker.testing.TempDirs.deleteOrWarn(dir);
  }

  @Provide
  Arbitrary<Script> scripts() {
    return OrdersScripts.laggingScripts();
  }

  @Property(tries = 60)
  void packedBatchesLeaveTheTableTheGeneralPathLeaves(@ForAll("scripts") Script script, @ForAll boolean formatV3,
      @ForAll boolean mergeRules) {
    Pair engines = new Pair(formatV3, mergeRules ? PACKED_RULES : Map.of());
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource();
    for (int i = 0; i < script.batches().size(); i++) {
      if (script.deliveries().get(i).restartBefore()) {
        engines.restart();
      }
      engines.applyAndCompare(source.records(script.batches().get(i), model), "batch " + i + " of " + script);
    }
    Statistics.collect(engines.packedBatches > 0 ? "some batch packed" : "no batch packed", mergeRules ? "merge rules" : "last only");
    Statistics.coverage(c -> {
      // the property tests the packed path, with and without merge rules (a third of tries pack)
      c.check("some batch packed", "merge rules").percentage(p -> p >= 5);
      c.check("some batch packed", "last only").percentage(p -> p >= 5);
    });
  }

  @Example
  void aBatchOfPlainUpsertsAndDeletesIsAppliedPackedAndEqualsTheGeneralPath() {
    Pair engines = new Pair(true, Map.of());
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource();
    engines.applyAndCompare(source.records(upserts(1, 40), model), "the first batch (creates the table)");
    List<Step> second = new ArrayList<>(upserts(20, 60));
    second.add(new Step.Delete(3));
    second.add(new Step.Delete(45));
    second.addAll(upserts(3, 5)); // deleted and inserted again in one batch
    engines.applyAndCompare(source.records(second, model), "the second batch");
    engines.applyAndCompare(source.records(List.of(new Step.Delete(4), new Step.Delete(70)), model), "deletes alone");

    assertThat(engines.packed.packedBatchesApplied()).as("batches applied packed").isEqualTo(2);
    assertThat(engines.general.packedBatchesApplied()).isZero();
    assertThat(rows(engines.packed.table())).hasSize(58); // 1..60 less 4 and 45
  }

  @Example
  void aSumThatLeavesItsColumnsRangeAgainstTheStoredRowIsRejectedAndTheStoredRowKept() {
    // given a table whose int column qty is summed, holding Integer.MAX_VALUE for key 1
    Pair engines = new Pair(false, PACKED_RULES);
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource();
    engines.applyAndCompare(source.records(List.of(qtyUpsert(1, Integer.MAX_VALUE), qtyUpsert(2, 5)), model), "the first batch");

    // when a batch adds to it, beside a key whose sum fits
    List<RawRecord> overflowing = source.records(List.of(qtyUpsert(1, 1), qtyUpsert(2, 7), qtyUpsert(3, 1)), model);
    BatchResult packed = engines.packed.apply(overflowing, DeadLetters.DISCARD);
    BatchResult general = engines.general.apply(overflowing, DeadLetters.DISCARD);

    // then it was not applied packed; both paths rejected key 1's record with the reason, kept its
    // stored row, applied the others, and left the same table
    assertThat(engines.packed.packedBatchesApplied()).isZero();
    for (BatchResult result : List.of(packed, general)) {
      assertThat(result.rejected()).singleElement().satisfies(r -> {
        assertThat(r.record()).isSameAs(overflowing.get(0));
        assertThat(r.reason()).contains("merge rule failed").contains("overflow").contains("stored row is kept");
      });
    }
    Map<Long, Map<String, Object>> rows = rows(engines.packed.table());
    assertThat(rows).isEqualTo(rows(engines.general.table()));
    assertThat(rows.get(1L)).containsEntry("qty", Integer.MAX_VALUE);
    assertThat(rows.get(2L)).containsEntry("qty", 12);
    assertThat(rows.get(3L)).containsEntry("qty", 1);
  }

  private static Step qtyUpsert(long id, int qty) {
    Map<String, Object> values = new java.util.HashMap<>(OrdersTable.row(id, qty));
    values.put("hi", id);
    return new Step.Upsert(id, values);
  }

  private static List<Step> upserts(long from, long to) {
    List<Step> out = new ArrayList<>();
    for (long id = from; id <= to; id++) {
      Map<String, Object> values = new java.util.HashMap<>(OrdersTable.row(id, (int) id % 7));
      values.put("hi", id * 3);
      values.put("lo", id % 2 == 0 ? null : -id);
      values.put("since", java.time.LocalDateTime.of(2026, 12, 5, 1, 0).plusNanos(id * 1_000L));
      values.put("price", id % 5 == 0 ? null : BigDecimal.valueOf(id * 101, 2));
      out.add(new Step.Upsert(id, values));
    }
    return out;
  }

  /** The same records applied by an engine that packs and one that takes the general path, to tables of their own. */
  private static final class Pair {
    final SinkSpec packedSink;
    final SinkSpec generalSink;
    SinkEngine packed;
    SinkEngine general;
    int packedBatches;

    Pair(boolean formatV3, Map<String, MergeRule> rules) {
      int n = TABLES.incrementAndGet();
      this.packedSink = sink("packed.orders_" + n, formatV3, rules);
      this.generalSink = sink("general.orders_" + n, formatV3, rules);
      restart();
    }

    void restart() {
      packed = new SinkEngine(packedSink, warehouse.catalog());
      general = new SinkEngine(generalSink, warehouse.catalog()).withoutPackedBatches();
    }

    void applyAndCompare(List<RawRecord> records, String what) {
      if (records.isEmpty()) {
        return;
      }
      int before = packed.packedBatchesApplied();
      BatchResult a = packed.apply(records, DeadLetters.DISCARD);
      packedBatches += packed.packedBatchesApplied() - before;
      BatchResult b = general.apply(records, DeadLetters.DISCARD);
      assertThat(a.rejected()).as("rejected, packed, %s", what).isEmpty();
      assertThat(b.rejected()).as("rejected, general, %s", what).isEmpty();
      assertThat(List.of(a.rowsWritten(), a.keysDeleted())).as("rows written and keys deleted, %s", what)
          .isEqualTo(List.of(b.rowsWritten(), b.keysDeleted()));
      if (b.snapshotId() != null) {
        assertThat(rows(packed.table())).as("the table after %s", what).isEqualTo(rows(general.table()));
      }
    }
  }

  private static SinkSpec sink(String table, boolean formatV3, Map<String, MergeRule> rules) {
    CatalogSpec catalog = warehouse.spec();
    return new SinkSpec(new SourceSpec("localhost:9092", List.of(OrdersTable.TOPIC), null, "floe-packed", null, null),
        new TableSpec(catalog, table, List.of(), List.of(), formatV3 ? 3 : 2, WriteMode.POSITION_DELETES, rules, Map.of()),
        null, null, null);
  }

  /** Every row by key, every column (the LSN too), as the table holds it. */
  private static Map<Long, Map<String, Object>> rows(Table table) {
    Map<Long, Map<String, Object>> out = new TreeMap<>();
    for (Map<String, Object> row : LocalWarehouse.rows(table)) {
      assertThat(out.put((Long) row.get("id"), new TreeMap<>(row))).as("key %s twice", row.get("id")).isNull();
    }
    return out;
  }
}
