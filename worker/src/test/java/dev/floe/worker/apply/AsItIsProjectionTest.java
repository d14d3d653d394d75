package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.DebeziumDecoder;
import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.EventField;
import dev.floe.worker.decode.EventSchema;
import dev.floe.worker.decode.Op;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.fold.BatchFolder;
import dev.floe.worker.fold.FoldedBatch;
import dev.floe.worker.fold.KeyFold;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.fold.Unchanged;
import dev.floe.worker.quickstart.OrdersStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * An upsert whose values are already the table's row is projected to those values themselves, not
 * a copy: the batch holds one array per event instead of two. The copying projection is the
 * reference: both fold a batch to the same rows, and folding leaves the events as they were
 * decoded, so a retry of the batch folds them again to the same rows.
 */
class AsItIsProjectionTest {
  private static final Map<String, MergeRule> RULES = Map.of(
      "amount", MergeRule.SUM, "customer", MergeRule.LAST_NON_NULL, "city", MergeRule.FIRST, "status", MergeRule.MAX);

  @Test
  void anUpsertWhoseValuesAreTheRowProjectsAsTheCopyingProjectionDoesWithoutACopy() {
    // given Debezium change events of the orders table, decoded, and the table made from their schema
    List<ChangeEvent> events = decodedOrders(5_000, 500, 1);
    TableLayout layout = layoutOf(events, false);

    // when each is projected both ways
    int asItIs = 0;
    for (ChangeEvent e : events) {
      BatchFolder.Projected fast = layout.project(e);
      BatchFolder.Projected reference = layout.projectCopying(e);

      // then they agree, and an upsert's row is its own values
      assertThat(fast.key()).isEqualTo(reference.key());
      assertThat(fast.nextKey()).isEqualTo(reference.nextKey());
      assertThat(fast.previousKey()).isEqualTo(reference.previousKey());
      assertThat(fast.row()).isEqualTo(reference.row());
      if (e.op() == Op.UPSERT) {
        assertThat(fast.row()).isSameAs(e.values());
        asItIs++;
      }
    }
    assertThat(asItIs).isGreaterThan(4_000);
  }

  @Test
  void aTableWithColumnsTheEventLacksGetsCopiedRows() {
    // given the orders events and a table that also keeps each row's LSN
    List<ChangeEvent> events = decodedOrders(200, 50, 2);
    TableLayout layout = layoutOf(events, true);

    // when the upserts are projected, then each is a new row of the table's width, the LSN filled in
    for (ChangeEvent e : events) {
      if (e.op() == Op.UPSERT) {
        Object[] row = layout.project(e).row();
        assertThat(row).isNotSameAs(e.values()).hasSize(e.values().length + 1).isEqualTo(layout.projectCopying(e).row());
        assertThat(row[layout.lsnPosition()]).isEqualTo(e.lsn());
        assertThat(layout.projectsAsItIs(e.schema())).isFalse();
      }
    }
  }

  @Test
  void aBatchFoldsToTheSameRowsThroughEitherProjectionAndItsEventsStayAsDecoded() {
    for (long seed = 1; seed <= 3; seed++) {
      // given 30k events over 3k keys, some of their values null or TOAST placeholders, and merge rules that combine versions
      List<ChangeEvent> events = withGaps(decodedOrders(30_000, 3_000, seed), new Random(seed));
      TableLayout layout = layoutOf(events, false);
      List<Object[]> asDecoded = events.stream().map(e -> e.values() == null ? null : e.values().clone()).toList();

      // when the batch folds projecting as it is (and again, as a retry does), and through the copying projection on every core
      FoldedBatch fast = BatchFolder.fold(events, layout::project, layout::projectsAsItIs, layout.rules(), null);
      FoldedBatch retried = BatchFolder.fold(events, layout::project, layout::projectsAsItIs, layout.rules(), null);
      FoldedBatch reference = BatchFolder.fold(events, layout::projectCopying, layout.rules(), null);

      // then all three reach the same rows, resolve them against a stored row to the same final rows, and no event's values changed
      assertSameFolds(fast, reference);
      assertSameFolds(retried, reference);
      Object[] stored = storedRow(events);
      reference.keys().forEach((k, f) -> {
        if (f.exists()) {
          assertThat(fast.keys().get(k).resolve(stored, layout.rules())).as("key %s", k).isEqualTo(f.resolve(stored, layout.rules()));
          assertThat(fast.keys().get(k).resolve(null, layout.rules())).as("key %s", k).isEqualTo(f.resolve(null, layout.rules()));
        }
      });
      for (int i = 0; i < events.size(); i++) {
        assertThat(events.get(i).values()).as("event %d", i).isEqualTo(asDecoded.get(i));
      }
    }
  }

  private static void assertSameFolds(FoldedBatch actual, FoldedBatch expected) {
    assertThat(actual.keys().keySet()).containsExactlyElementsOf(expected.keys().keySet());
    expected.keys().forEach((k, f) -> {
      KeyFold g = actual.keys().get(k);
      assertThat(g.partial()).as("key %s", k).isEqualTo(f.partial());
      assertThat(g.exists()).isEqualTo(f.exists());
      assertThat(g.discardsStored()).isEqualTo(f.discardsStored());
      assertThat(g.deletedInBatch()).isEqualTo(f.deletedInBatch());
    });
    assertThat(actual.rejected()).isEqualTo(expected.rejected());
  }

  /** The orders stream's records (Debezium's JsonConverter envelopes, deletes and tombstones included), decoded. */
  private static List<ChangeEvent> decodedOrders(int count, int keys, long seed) {
    OrdersStream stream = new OrdersStream("shop.public.orders", keys, 4, seed);
    DebeziumDecoder decoder = new DebeziumDecoder(List.of());
    List<ChangeEvent> out = new ArrayList<>();
    for (RawRecord r : stream.next(count)) {
      Decoded d = decoder.decode(r, null);
      if (d instanceof ChangeEvent e) {
        out.add(e);
      }
    }
    return out;
  }

  /** Each upsert with, at random, its customer null (last-non-null keeps the one before) or its city a TOAST placeholder. */
  private static List<ChangeEvent> withGaps(List<ChangeEvent> events, Random random) {
    List<ChangeEvent> out = new ArrayList<>(events.size());
    for (ChangeEvent e : events) {
      if (e.op() != Op.UPSERT || random.nextInt(4) != 0) {
        out.add(e);
        continue;
      }
      Object[] values = e.values().clone();
      values[position(e.schema(), random.nextBoolean() ? "customer" : "city")] = random.nextBoolean() ? null : Unchanged.VALUE;
      out.add(new ChangeEvent(e.op(), e.key(), e.schema(), values, e.lsn(), e.record(), e.previousKey(), e.nextKey()));
    }
    return out;
  }

  /** A stored row of the orders table: every column set, so each rule that reads it has a value to combine with. */
  private static Object[] storedRow(List<ChangeEvent> events) {
    return events.stream().filter(e -> e.op() == Op.UPSERT && java.util.Arrays.stream(e.values()).allMatch(v -> v != null && v != Unchanged.VALUE))
        .findFirst().orElseThrow().values().clone();
  }

  private static int position(EventSchema schema, String name) {
    return schema.fields().indexOf(schema.field(name));
  }

  /** The table as the worker creates it for these events: their columns in their order, keyed by id; optionally with the LSN column. */
  private static TableLayout layoutOf(List<ChangeEvent> events, boolean withLsn) {
    EventSchema event = events.stream().filter(e -> e.op() == Op.UPSERT).findFirst().orElseThrow().schema();
    List<Types.NestedField> columns = new ArrayList<>();
    int id = 1;
    for (EventField f : event.fields()) {
      columns.add(f.name().equals("id") ? Types.NestedField.required(id++, f.name(), f.type()) : Types.NestedField.optional(id++, f.name(), f.type()));
    }
    if (withLsn) {
      columns.add(Types.NestedField.optional(id, TableLayout.LSN_COLUMN, Types.LongType.get()));
    }
    Schema schema = new Schema(columns, Set.of(1));
    return new TableLayout(schema, PartitionSpec.unpartitioned(),
        new TableSpec(CatalogSpec.local("/tmp/unused"), "shop.orders", List.of(), List.of(), 3, WriteMode.POSITION_DELETES, RULES, Map.of()));
  }
}
