package dev.floe.worker.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.commit.RecordSkipper;
import dev.floe.worker.commit.SinkOffsets;
import dev.floe.worker.commit.SkipRefusedException;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.RejectedRecord;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A record whose schema the table cannot follow cuts the batch: what precedes it commits, it is dead-lettered once. */
class StopAtIncompatibleTest {
  @TempDir Path dir;

  private final DebeziumEnvelopes orders = DebeziumEnvelopes.forTopic(OrdersTable.TOPIC).columns(OrdersTable.columns(false)).key("id");

  @Test
  void theCutIsPerPartitionAndKeepsOrderWithinEach() {
    RawRecord a0 = rec(0, 0), a1 = rec(0, 1), a2 = rec(0, 2), b0 = rec(1, 0), b1 = rec(1, 1), c0 = rec(2, 0);
    BatchCut cut = BatchCut.at(List.of(a0, b0, a1, c0, b1, a2), List.of(a1, a2, b1));
    assertThat(cut.applicable()).containsExactly(a0, b0, c0);
    assertThat(cut.stoppedAt()).containsExactly(a1, b1);
  }

  @Test
  void goodRecordsBeforeTheCutCommitAndTheOffendingRecordIsDeadLetteredOnceAcrossRetries() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = OrdersTable.sink(warehouse.spec(), "stop.orders", 2, false, WriteMode.EQUALITY_DELETES);
    SinkEngine engine = new SinkEngine(spec, warehouse.catalog());
    engine.apply(List.of(orders.insert(0, OrdersTable.row(1, 7))), r -> {});
    RawRecord good0 = orders.insert(0, OrdersTable.row(2, 7));
    RawRecord good1 = orders.insert(1, OrdersTable.row(3, 7));
    List<ConnectColumn> qtyAsText = new ArrayList<>(OrdersTable.columns(false));
    qtyAsText.set(2, ConnectColumn.string("qty"));
    RawRecord bad = orders.columns(qtyAsText).insert(0, OrdersTable.row(4, "four"));
    RawRecord afterBad = orders.columns(OrdersTable.columns(false)).insert(0, OrdersTable.row(5, 7)); // old schema again, but after the cut
    RawRecord good1Later = orders.insert(1, OrdersTable.row(6, 7));
    List<RawRecord> batch = List.of(good0, good1, bad, afterBad, good1Later);
    List<RejectedRecord> dead = new ArrayList<>();

    // when the batch meets the record, and then (a restart) meets it again, twice
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> engine.apply(batch, dead::addAll)).isInstanceOf(TableStoppedException.class)
          .hasMessageContaining("column 'qty' changed type from int to string");
    }

    // then everything before the cut is in the table, nothing at or after it in its partition,
    // the other partition is complete, and the dead-letter topic got the record once
    assertThat(LocalWarehouse.rows(engine.table())).extracting(r -> r.get("id")).containsExactlyInAnyOrder(1L, 2L, 3L, 6L);
    SinkOffsets held = engine.offsets();
    assertThat(held.nextOffset(bad.topicPartition())).isEqualTo(bad.offset());
    assertThat(held.nextOffset(good1.topicPartition())).isEqualTo(good1Later.offset() + 1);
    assertThat(held.stoppedAt(bad.topicPartition(), bad.offset())).isTrue();
    assertThat(dead).extracting(RejectedRecord::record).containsExactly(bad);

    // and a skip moves the offsets past it, records the skip, and the stop point is gone
    assertThatThrownBy(() -> RecordSkipper.skip(engine.table(), spec.sinkId(), bad.topicPartition(), bad.offset() + 1, null))
        .isInstanceOf(SkipRefusedException.class).hasMessageContaining("only the record the sink stands at");
    RecordSkipper.skip(engine.table(), spec.sinkId(), bad.topicPartition(), bad.offset(), null);
    SinkOffsets skipped = OffsetLedger.read(engine.table(), spec.sinkId());
    assertThat(skipped.nextOffset(bad.topicPartition())).isEqualTo(bad.offset() + 1);
    assertThat(skipped.stops()).isEmpty();
    assertThat(skipped.skipped()).singleElement().satisfies(p -> {
      assertThat(p.partition()).isEqualTo(new TopicPartition(OrdersTable.TOPIC, 0));
      assertThat(p.offset()).isEqualTo(bad.offset());
      assertThat(p.reason()).contains("column 'qty' changed type");
    });
    BatchResult resumed = engine.apply(batch, dead::addAll);
    assertThat(LocalWarehouse.rows(engine.table())).extracting(r -> r.get("id")).containsExactlyInAnyOrder(1L, 2L, 3L, 5L, 6L);
    assertThat(resumed.alreadyApplied()).isEqualTo(4);
    assertThat(dead).hasSize(1);
    assertThat(engine.offsets().skipped()).hasSize(1); // carried forward by later commits
  }

  private static RawRecord rec(int partition, long offset) {
    return new RawRecord("t", partition, offset, null, new byte[0]);
  }

}
