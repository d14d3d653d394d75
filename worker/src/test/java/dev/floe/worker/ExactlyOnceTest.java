package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CatalogType;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.Step;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.Latches;
import dev.floe.worker.testing.NessieServer;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Nothing lost, nothing doubled: replays after a crash, overlapping redeliveries, concurrent writers. */
class ExactlyOnceTest {
  @TempDir Path dir;

  private final DebeziumEnvelopes orders = DebeziumEnvelopes.forTopic(OrdersTable.TOPIC).columns(OrdersTable.columns(false)).key("id");

  @Test
  void aBatchReplayedAfterACrashBeforeTheKafkaCommitChangesNothing() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(sink(warehouse, "eo.replay"), warehouse.catalog());
    List<RawRecord> batch = List.of(order(1, 5), order(2, 7), order(1, 3));
    BatchResult first = engine.apply(batch, DeadLetters.DISCARD);

    // the worker dies before committing to Kafka, restarts, and is handed the same records
    SinkEngine restarted = new SinkEngine(sink(warehouse, "eo.replay"), warehouse.catalog());
    BatchResult replay = restarted.apply(batch, DeadLetters.DISCARD);

    assertThat(replay.alreadyApplied()).isEqualTo(3);
    assertThat(replay.snapshotId()).isNull();
    assertThat(restarted.table().currentSnapshot().snapshotId()).isEqualTo(first.snapshotId());
    assertThat(qtyById(restarted.table())).containsExactlyInAnyOrderEntriesOf(Map.of(1L, 8L, 2L, 7L)); // summed once
  }

  @Test
  void aRedeliveryOverlappingWhatTheTableHoldsAppliesOnlyTheNewPart() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(sink(warehouse, "eo.overlap"), warehouse.catalog());
    List<RawRecord> all = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      all.add(order(2 * (i % 4) + 2, 1)); // keys 2,4,6,8: one partition, 5 increments each
    }
    engine.apply(all.subList(0, 12), DeadLetters.DISCARD);
    BatchResult overlap = engine.apply(all.subList(6, 20), DeadLetters.DISCARD);

    assertThat(overlap.alreadyApplied()).isEqualTo(6);
    assertThat(qtyById(engine.table())).containsExactlyInAnyOrderEntriesOf(Map.of(2L, 5L, 4L, 5L, 6L, 5L, 8L, 5L));
    assertThat(OffsetLedger.read(engine.table(), "floe-orders").next())
        .containsExactly(Map.entry(new TopicPartition(OrdersTable.TOPIC, 0), 20L));
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(WriteMode.class)
  void twoWorkersOnDisjointPartitionsCommitConcurrentlyAndKeepBothOffsets(WriteMode mode) {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    twoWorkersCommitConcurrently(OrdersTable.sink(warehouse.spec(), "eo.concurrent", 3, false, mode), warehouse::catalog);
  }

  @Test
  void twoWorkersCommitConcurrentlyThroughNessie() throws Exception {
    // Nessie commits by compare-and-swap on the branch: the offset guard must hold there too
    try (NessieServer nessie = NessieServer.start(dir.resolve("nessie"))) {
      CatalogSpec catalog = new CatalogSpec(CatalogType.NESSIE, nessie.uri(), dir.resolve("lake").toUri().toString(), "main", null, Map.of());
      twoWorkersCommitConcurrently(OrdersTable.sink(catalog, "eo.concurrent", 2, false, WriteMode.POSITION_DELETES),
          () -> CatalogLoader.load("floe", catalog, SecretResolver.fromEnvironment()));
    }
  }

  /** Two workers, one per partition, commit eight batches each at once; every row and both offsets survive. */
  private void twoWorkersCommitConcurrently(SinkSpec spec, Supplier<Catalog> catalogs) {
    // create the table first so both workers race on commits, not on creation
    new SinkEngine(spec, catalogs.get()).apply(List.of(order(100, 1)), DeadLetters.DISCARD);
    OrdersModel model = new OrdersModel();
    model.apply(upsert(100, 1));

    Map<Integer, List<List<RawRecord>>> batchesByPartition = new HashMap<>();
    for (int b = 0; b < 8; b++) {
      for (int p = 0; p < 2; p++) {
        List<RawRecord> batch = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
          long id = 2L * k + p; // partition = id % 2
          batch.add(order(id, b + 1));
          model.apply(upsert(id, b + 1));
        }
        batchesByPartition.computeIfAbsent(p, x -> new ArrayList<>()).add(batch);
      }
    }
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<CompletableFuture<Integer>> workers = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      List<List<RawRecord>> batches = batchesByPartition.get(p);
      workers.add(CompletableFuture.supplyAsync(() -> {
        SinkEngine worker = new SinkEngine(spec, catalogs.get());
        Latches.await(start);
        int retries = 0;
        for (List<RawRecord> batch : batches) {
          retries += worker.apply(batch, DeadLetters.DISCARD).commitAttempts() - 1;
        }
        return retries;
      }, pool));
    }
    start.countDown();
    int retries = workers.stream().mapToInt(CompletableFuture::join).sum();
    pool.shutdown();

    Table table = catalogs.get().loadTable(TableIdentifier.parse(spec.table().name()));
    Map<Long, Long> expected = new HashMap<>();
    model.expected().forEach((id, row) -> expected.put(id, (Long) row.get("qty")));
    assertThat(qtyById(table)).isEqualTo(expected);
    assertThat(OffsetLedger.read(table, spec.sinkId()).next()).isEqualTo(Map.of(
        new TopicPartition(OrdersTable.TOPIC, 0), orders.nextOffsets().get(0),
        new TopicPartition(OrdersTable.TOPIC, 1), orders.nextOffsets().get(1)));
    System.out.println("concurrent writers: " + retries + " commit(s) replanned after losing a race");
  }

  @Test
  void aTruncateArrivingAfterNewerRowsOfAnotherPartitionRemovesOnlyTheOlderRows() {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(sink(warehouse, "eo.late_truncate"), warehouse.catalog());
    RawRecord one = order(1, 1);
    RawRecord two = order(2, 1);
    RawRecord truncate = orders.truncate(0); // TRUNCATE happens here in source (LSN) order ...
    RawRecord three = order(3, 1);
    engine.apply(List.of(one, two), DeadLetters.DISCARD);
    engine.apply(List.of(three), DeadLetters.DISCARD); // ... but partition 1 runs ahead of partition 0
    BatchResult late = engine.apply(List.of(truncate), DeadLetters.DISCARD);

    assertThat(late.truncated()).isTrue();
    assertThat(qtyById(engine.table())).containsExactly(Map.entry(3L, 1L));
    // and an event of partition 0 older than the truncate, arriving later still, is dropped
    RawRecord stale = new RawRecord(two.topic(), two.partition(), truncate.offset() + 1, two.key(), two.value());
    engine.apply(List.of(stale), DeadLetters.DISCARD);
    assertThat(qtyById(engine.table())).containsExactly(Map.entry(3L, 1L));
  }

  private RawRecord order(long id, int qty) {
    return orders.update(OrdersTable.partitionOf(id), row(id, qty));
  }

  private static Step upsert(long id, int qty) {
    return new Step.Upsert(id, row(id, qty));
  }

  private static Map<String, Object> row(long id, int qty) {
    Map<String, Object> row = new HashMap<>();
    row.put("id", id);
    row.put("region", "eu");
    row.put("qty", qty);
    row.put("price", new BigDecimal("1.00"));
    row.put("note", "n" + id);
    return row;
  }

  private static SinkSpec sink(LocalWarehouse warehouse, String table) {
    return OrdersTable.sink(warehouse.spec(), table, 2, false, WriteMode.EQUALITY_DELETES);
  }

  private static Map<Long, Long> qtyById(Table table) {
    Map<Long, Long> out = new HashMap<>();
    for (Map<String, Object> row : LocalWarehouse.rows(table)) {
      Object qty = row.get("qty");
      if (out.put((Long) row.get("id"), qty == null ? null : ((Number) qty).longValue()) != null) {
        throw new AssertionError("duplicate key " + row.get("id"));
      }
    }
    return out;
  }

}
