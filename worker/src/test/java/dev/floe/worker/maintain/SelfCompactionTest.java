package dev.floe.worker.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.SelfCompactionSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.maintain.SelfCompactionPlanner.Trigger;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker's self-compaction racing commits of another writer and of the same worker: no row
 * lost, resurrected or doubled, the sink's offsets found, the primary-key index following the
 * rewritten files.
 */
class SelfCompactionTest {
  @TempDir Path dir;

  /** Rewrites every file with deletes when idle; busy, files past a tenth dead; groups from two files. */
  private static final CompactionSpec SPEC = new CompactionSpec(null, null, 2, null, null, null, null, null, null, null, null,
      new SelfCompactionSpec(true, "1s", 0.1));

  @Test
  void selfCompactionRacingAnotherWritersBatchesKeepsTheTableEqualToTheSource() {
    // position deletes v2 and v3 (deletion vectors), equality deletes on a partitioned table
    for (int script = 0; script < 3; script++) {
      {
        WriteMode mode = script < 2 ? WriteMode.POSITION_DELETES : WriteMode.EQUALITY_DELETES;
        // given a table a writer keeps committing to, and a second worker's view of it that self-compacts meanwhile
        LocalWarehouse warehouse = new LocalWarehouse(dir.resolve(mode.name() + script));
        SinkSpec sink = OrdersTable.sink(warehouse.spec(), "selfc.orders", script == 1 ? 3 : 2, script == 2, mode);
        SinkEngine writer = new SinkEngine(sink, warehouse.catalog());
        OrdersModel model = new OrdersModel();
        OrdersSource source = new OrdersSource();
        List<Step> steps = OrdersScripts.steps().list().ofSize(280).sample();
        writer.apply(source.records(steps.subList(0, 40), model), DeadLetters.DISCARD);
        Table compactorsView = warehouse.catalog().loadTable(TableIdentifier.parse("selfc.orders"));

        // when both go on at once
        CompletableFuture<Void> ingest = CompletableFuture.runAsync(() -> {
          for (int b = 40; b < steps.size(); b += 20) {
            assertThat(writer.apply(source.records(steps.subList(b, b + 20), model), DeadLetters.DISCARD).rejected()).isEmpty();
          }
        });
        int runs = 0;
        int lost = 0;
        while (!ingest.isDone() || runs < 2) {
          lost += new SelfCompactor(compactorsView, SPEC).run(runs++ % 2 == 0 ? Trigger.DEAD_FRACTION : Trigger.IDLE, () -> true).lostRaces();
        }
        ingest.join();
        SelfCompactor.Report idle = new SelfCompactor(compactorsView, SPEC).run(Trigger.IDLE, () -> true);

        // then the table equals the source, with every delete applied and dropped, and the offsets are the writer's
        Table table = writer.table();
        String as = mode + " script " + script + " after " + runs + " runs (" + lost + " lost races): " + idle;
        System.out.println(as);
        assertThat(ScriptPlayer.actual(table)).as(as).isEqualTo(model.expected());
        assertThat(OffsetLedger.read(table, sink.sinkId()).next()).as(as).isEqualTo(source.nextOffsets());
        assertThat(table.currentSnapshot().summary().get("total-delete-files")).as(as).isEqualTo("0");
      }
    }
  }

  @Test
  void aBatchOfTheSameWorkerCommittedBetweenPlanAndCommitIsNeverLostNorItsDeletedRowResurrected() {
    for (WriteMode mode : WriteMode.values()) {
      for (int formatVersion : mode == WriteMode.POSITION_DELETES ? new int[] {2, 3} : new int[] {2}) {
        // given rows in several files, some already updated (deletes apply to their files)
        LocalWarehouse warehouse = new LocalWarehouse(dir.resolve(mode.name() + formatVersion));
        SinkSpec sink = OrdersTable.sink(warehouse.spec(), "selfc.race", formatVersion, false, mode);
        SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
        OrdersModel model = new OrdersModel();
        OrdersSource source = new OrdersSource();
        for (long id = 1; id <= 6; id++) {
          engine.apply(source.records(List.of(upsert(id, 1)), model), DeadLetters.DISCARD);
        }
        engine.apply(source.records(List.of(upsert(1, 1), upsert(2, 1)), model), DeadLetters.DISCARD);
        // the worker's next batches, one per attempt, delete and update rows of the files being rewritten
        Iterator<List<RawRecord>> between = List.of(
            source.records(List.of(new Step.Delete(3), upsert(4, 10)), model),
            source.records(List.of(new Step.Delete(5), upsert(6, 10)), model)).iterator();

        // when the worker's self-compaction is overtaken by them between its rewrite and its commit
        SelfCompactor.Report report = new SelfCompactor(engine.table(), SPEC)
            .beforeGroupCommit(group -> {
              if (between.hasNext()) {
                engine.apply(between.next(), DeadLetters.DISCARD);
              }
            })
            .run(Trigger.IDLE, () -> true);
        between.forEachRemaining(batch -> engine.apply(batch, DeadLetters.DISCARD)); // fewer groups than batches: the rest commit after

        // then nothing is lost or comes back: by position the rewrite lost the race and was planned
        // again; by equality the deletes, newer than the rewritten files, still apply to them
        String as = mode + " v" + formatVersion + ": " + report;
        Map<Long, Map<String, Object>> rows = ScriptPlayer.actual(engine.table());
        assertThat(rows).as(as).isEqualTo(model.expected()).doesNotContainKeys(3L, 5L);
        assertThat(rows.get(4L).get("qty")).as(as).isEqualTo(11L);
        assertThat(rows.get(6L).get("qty")).as(as).isEqualTo(11L);
        assertThat(OffsetLedger.read(engine.table(), sink.sinkId()).next()).as(as).isEqualTo(source.nextOffsets());
        if (mode == WriteMode.POSITION_DELETES) {
          // lost once, planned again from the new state, lost again: left for the next turn
          assertThat(report.lostRaces()).as(as).isEqualTo(2);
          assertThat(report.groups()).as(as).isZero();
        } else {
          assertThat(report.groups()).as(as).isPositive();
        }
        // the next turn, undisturbed, applies what the races left (deletes newer than the rewrite included)
        assertThat(new SelfCompactor(engine.table(), SPEC).run(Trigger.IDLE, () -> true).groups()).as(as).isPositive();
        assertThat(ScriptPlayer.actual(engine.table())).as(as).isEqualTo(model.expected());
        assertThat(engine.table().currentSnapshot().summary().get("total-delete-files")).as(as).isEqualTo("0");

        // and the worker goes on from the rewritten files, its index caught up rather than rebuilt
        int builds = engine.indexBuildsAndLoads()[0];
        engine.apply(source.records(List.of(upsert(1, 5), new Step.Delete(2), upsert(4, 1)), model), DeadLetters.DISCARD);
        assertThat(ScriptPlayer.actual(engine.table())).as(as).isEqualTo(model.expected()).doesNotContainKeys(2L, 3L, 5L);
        assertThat(engine.indexBuildsAndLoads()[0]).as(as).isEqualTo(builds);
      }
    }
  }

  @Test
  void busyCompactionRewritesOnlyTheFilesPastTheDeadFraction() {
    // given one file with half its rows deleted and one with a tenth
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), "selfc.fraction", 3, false, WriteMode.POSITION_DELETES);
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource();
    engine.apply(source.records(range(1, 10), model), DeadLetters.DISCARD);
    engine.apply(source.records(range(11, 20), model), DeadLetters.DISCARD);
    engine.apply(source.records(List.of(new Step.Delete(1), new Step.Delete(2), new Step.Delete(3), new Step.Delete(4),
        new Step.Delete(5), new Step.Delete(11)), model), DeadLetters.DISCARD);

    // when the worker checks dead fractions at 0.2
    CompactionSpec spec = new CompactionSpec(null, null, null, null, null, null, null, null, null, null, null,
        new SelfCompactionSpec(true, "30s", 0.2));
    SelfCompactor.Report report = new SelfCompactor(engine.table(), spec).run(Trigger.DEAD_FRACTION, () -> true);

    // then only the half-dead file is rewritten; the other keeps its deletion vector
    assertThat(report.filesRewritten()).as(report.toString()).isEqualTo(1);
    assertThat(report.rows()).isEqualTo(5);
    assertThat(engine.table().currentSnapshot().summary().get("total-delete-files")).isEqualTo("1");
    assertThat(ScriptPlayer.actual(engine.table())).isEqualTo(model.expected());
  }

  private static List<Step> range(long from, long to) {
    List<Step> out = new java.util.ArrayList<>();
    for (long id = from; id <= to; id++) {
      out.add(upsert(id, 1));
    }
    return out;
  }

  private static Step upsert(long id, int qty) {
    Map<String, Object> v = new HashMap<>();
    v.put("qty", qty);
    v.put("region", "eu");
    return new Step.Upsert(id, v);
  }
}
