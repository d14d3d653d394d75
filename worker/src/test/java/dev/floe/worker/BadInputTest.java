package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.worker.apply.IncompatibleSchemaException;
import dev.floe.worker.config.OnError;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.RejectedRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.engine.RejectedRecordsException;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad records are rejected with a precise reason and the rest of the batch is applied; nothing is dropped silently. */
class BadInputTest {
  @TempDir Path dir;

  private final DebeziumEnvelopes orders = DebeziumEnvelopes.forTopic(OrdersTable.TOPIC).columns(OrdersTable.columns(false)).key("id");

  @Test
  void poisonRecordsAreRejectedWithTheirReasonAndTheRestIsApplied() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(sink(warehouse, OnError.DEAD_LETTER), warehouse.catalog());
    List<RejectedRecord> deadLetters = new ArrayList<>();
    RawRecord good1 = orders.insert(1, row(1));
    RawRecord notJson = orders.raw(0, "{\"id\":2}".getBytes(StandardCharsets.UTF_8), "{not json".getBytes(StandardCharsets.UTF_8));
    RawRecord noOp = orders.raw(0, null, "{\"after\":{\"id\":3}}".getBytes(StandardCharsets.UTF_8));
    RawRecord badValue = badQty(orders.insert(0, row(4)));
    RawRecord unknownOp = orders.raw(0, null, "{\"op\":\"m\",\"source\":{}}".getBytes(StandardCharsets.UTF_8));
    RawRecord good2 = orders.insert(0, row(6));

    BatchResult result = engine.apply(List.of(good1, notJson, noOp, badValue, unknownOp, good2), deadLetters::addAll);

    assertThat(deadLetters).isEqualTo(result.rejected());
    assertThat(deadLetters).extracting(r -> r.record().offset(), RejectedRecord::reason).containsExactlyInAnyOrder(
        org.assertj.core.groups.Tuple.tuple(notJson.offset(), "value is not JSON: Unexpected character ('n' (code 110)): was expecting double-quote to start field name"),
        org.assertj.core.groups.Tuple.tuple(noOp.offset(), "not a Debezium change event: no 'op' field"),
        org.assertj.core.groups.Tuple.tuple(badValue.offset(), "column 'qty' (int): \"many\" is not an int"),
        org.assertj.core.groups.Tuple.tuple(unknownOp.offset(), "unsupported Debezium op 'm' (expected c, u, r, d or t)"));
    assertThat(LocalWarehouse.rows(engine.table())).extracting(r -> r.get("id")).containsExactlyInAnyOrder(1L, 6L);
    // the rejected records' offsets are consumed: a restart does not send them again
    assertThat(engine.offsets().nextOffset(good2.topicPartition())).isEqualTo(good2.offset() + 1);
  }

  /**
   * Found by the decoder fuzz target: a float no decimal can hold (its exponent past an int) made
   * Jackson throw out of the decoder. In a field nobody reads it is ignored, as the streamed read
   * ignores it; in a column it is a rejection naming the column.
   */
  @Test
  void aFloatNoDecimalCanHoldIsIgnoredWhereUnreadAndRejectedInAColumn() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(sink(warehouse, OnError.DEAD_LETTER), warehouse.catalog());
    engine.apply(List.of(orders.insert(0, row(1))), r -> {});
    List<RejectedRecord> deadLetters = new ArrayList<>();
    RawRecord inSource = schemaless(2, "{\"op\":\"c\",\"source\":{\"ts_ns\":1e6123046116182000},\"after\":{\"id\":2,\"qty\":5}}");
    RawRecord inColumn = schemaless(3, "{\"op\":\"c\",\"after\":{\"id\":3,\"qty\":1e6123046116182000}}");

    BatchResult result = engine.apply(List.of(inSource, inColumn), deadLetters::addAll);

    assertThat(result.rejected()).singleElement().satisfies(r -> {
      assertThat(r.record().offset()).isEqualTo(inColumn.offset());
      assertThat(r.reason()).contains("'qty'").hasSizeLessThan(400);
    });
    assertThat(LocalWarehouse.rows(engine.table())).extracting(r -> r.get("id")).containsExactlyInAnyOrder(1L, 2L);
  }

  private RawRecord schemaless(long id, String payload) {
    return orders.raw(0, ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8),
        ("{\"schema\":null,\"payload\":" + payload + "}").getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void onErrorFailStopsBeforeCommittingAnything() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(sink(warehouse, OnError.FAIL), warehouse.catalog());
    engine.apply(List.of(orders.insert(0, row(2))), r -> {});
    long snapshot = engine.table().currentSnapshot().snapshotId();

    assertThatThrownBy(() -> engine.apply(List.of(orders.insert(0, row(4)), badQty(orders.insert(0, row(6)))), r -> {}))
        .isInstanceOf(RejectedRecordsException.class)
        .hasMessageContaining("is not an int");
    assertThat(engine.table().currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  @Test
  void anIncompatibleTypeChangeStopsTheSinkNamingTheColumnAndKeepsTheTable() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(sink(warehouse, OnError.DEAD_LETTER), warehouse.catalog());
    engine.apply(List.of(orders.insert(0, row(2))), r -> {});
    long snapshot = engine.table().currentSnapshot().snapshotId();
    List<ConnectColumn> narrowed = new ArrayList<>(OrdersTable.columns(false));
    narrowed.set(2, ConnectColumn.string("qty")); // int -> text at the source
    orders.columns(narrowed);
    Map<String, Object> r = row(4);
    r.put("qty", "four");
    RawRecord offending = orders.insert(0, r);

    List<RejectedRecord> dead = new ArrayList<>();
    assertThatThrownBy(() -> engine.apply(List.of(offending), dead::addAll))
        .isInstanceOf(IncompatibleSchemaException.class)
        .hasMessageContaining("column 'qty' changed type from int to string")
        .satisfies(e -> assertThat(((IncompatibleSchemaException) e).offending()).containsExactly(offending));
    // the table keeps its rows and schema; the one snapshot added only records where the sink stopped
    assertThat(LocalWarehouse.rows(engine.table())).extracting(x -> x.get("id")).containsExactly(2L);
    assertThat(engine.table().currentSnapshot().parentId()).isEqualTo(snapshot);
    assertThat(engine.table().schema().findType("qty").toString()).isEqualTo("int");
    assertThat(engine.offsets().nextOffset(offending.topicPartition())).isEqualTo(offending.offset());
    assertThat(engine.offsets().stoppedAt(offending.topicPartition(), offending.offset())).isTrue();
    assertThat(dead).extracting(RejectedRecord::record).containsExactly(offending);
  }

  @Test
  void aRecordWithoutKeyIsRejectedUnlessThePrimaryKeyIsConfigured() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(sink(warehouse, OnError.DEAD_LETTER), warehouse.catalog());
    RawRecord keyless = withoutKey(orders.insert(0, row(8)));
    BatchResult result = engine.apply(List.of(keyless), x -> {});
    assertThat(result.rejected()).extracting(RejectedRecord::reason)
        .containsExactly("record has no key and table.primaryKey is not configured");
  }

  private static RawRecord badQty(RawRecord r) {
    String v = new String(r.value(), StandardCharsets.UTF_8).replace("\"qty\":7", "\"qty\":\"many\"");
    return new RawRecord(r.topic(), r.partition(), r.offset(), r.key(), v.getBytes(StandardCharsets.UTF_8));
  }

  private static RawRecord withoutKey(RawRecord r) {
    return new RawRecord(r.topic(), r.partition(), r.offset(), null, r.value());
  }

  private static Map<String, Object> row(long id) {
    Map<String, Object> row = new HashMap<>();
    row.put("id", id);
    row.put("region", "eu");
    row.put("qty", 7);
    row.put("price", new BigDecimal("2.50"));
    return row;
  }

  private static SinkSpec sink(LocalWarehouse warehouse, OnError onError) {
    SinkSpec s = OrdersTable.sink(warehouse.spec(), "bad.orders", 2, false, WriteMode.EQUALITY_DELETES);
    return new SinkSpec(s.source(), s.table(), s.commit(), s.deadLetter(), onError);
  }
}
