package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.maintain.Compactor;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.Script;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.fold.MergeRule;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The fast path (merge-rule values from the primary-key index's merge state, stored rows read
 * only where it lacks a column, projected; in the position mode, and in the equality mode on an
 * unpartitioned table) gives the same table as the general path (every needed stored row read
 * whole through the index, or by a scan in the equality mode), across merge rules, TOAST placeholders, key moves,
 * deletes, truncates, a schema change, restarts of the fast engine (its index loaded from the
 * persisted copy and caught up) and compactions by another writer (files rewritten under the index).
 */
class MergeStatePropertiesTest {
  private static final AtomicInteger TABLES = new AtomicInteger();
  private static final CompactionSpec REWRITE = new CompactionSpec(null, null, 2, "5d", 10, "5d", null, true, false, false, false);
  private static Path dir;
  private static LocalWarehouse warehouse;

  /** What happens to the fast engine's table between two batches. */
  enum Between { NOTHING, RESTART, COMPACTION, BOTH }

  @BeforeContainer
  static void warehouse() throws IOException {
    dir = Files.createTempDirectory("floe-merge-state");
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
  Arbitrary<List<Between>> betweens() {
    return Arbitraries.frequency(
        net.jqwik.api.Tuple.of(4, Between.NOTHING),
        net.jqwik.api.Tuple.of(2, Between.RESTART),
        net.jqwik.api.Tuple.of(2, Between.COMPACTION),
        net.jqwik.api.Tuple.of(1, Between.BOTH)).list().ofSize(8);
  }

  @Property // the default tries (25); -Djqwik.tries=500 soaks it
  void theFastPathWritesWhatTheReferencePathWrites(@ForAll("scripts") Script script, @ForAll("betweens") List<Between> betweens,
      @ForAll @IntRange(min = 2, max = 3) int formatVersion, @ForAll boolean partitioned, @ForAll WriteMode mode,
      @ForAll boolean everyRule) {
    int n = TABLES.incrementAndGet();
    // every rule: since (a timestamp the merge state does not hold) is "first", so its stored values are read
    // from the table; otherwise since is "last" and every merge-rule value comes from the merge state alone
    SinkSpec fastSink = sink("ms.fast_" + n, formatVersion, partitioned, mode, everyRule);
    SinkSpec referenceSink = sink("ms.reference_" + n, formatVersion, partitioned, mode, everyRule);
    SinkEngine fast = new SinkEngine(fastSink, warehouse.catalog());
    SinkEngine reference = new SinkEngine(referenceSink, warehouse.catalog()).readingStoredRowsWhole();
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource();

    for (int b = 0; b < script.batches().size(); b++) {
      List<Step> steps = script.batches().get(b);
      List<RawRecord> records = source.records(steps, model);
      Between between = betweens.get(b % betweens.size());
      if (b > 0 && (between == Between.COMPACTION || between == Between.BOTH) && fast.table() != null) {
        new Compactor(fast.table(), fastSink.sinkId(), REWRITE).run();
      }
      if (between == Between.RESTART || between == Between.BOTH) {
        fast = new SinkEngine(fastSink, warehouse.catalog());
      }

      fast.apply(records, DeadLetters.DISCARD);
      reference.apply(records, DeadLetters.DISCARD);

      if (reference.table() != null) {
        String as = "batch " + b + " " + steps + " after " + between + ", format v" + formatVersion
            + (partitioned ? ", partitioned" : "") + ", " + mode + (everyRule ? "" : ", since last");
        assertThat(ScriptPlayer.actual(fast.table())).as("fast path after %s", as)
            .isEqualTo(ScriptPlayer.actual(reference.table()));
        if (everyRule) {
          assertThat(ScriptPlayer.actual(reference.table())).as("reference path after %s", as).isEqualTo(model.expected());
        }
      }
    }
  }

  private static SinkSpec sink(String table, int formatVersion, boolean partitioned, WriteMode mode, boolean everyRule) {
    SinkSpec sink = OrdersTable.sink(warehouse.spec(), table, formatVersion, partitioned, mode);
    if (everyRule) {
      return sink;
    }
    Map<String, MergeRule> rules = new HashMap<>(OrdersTable.RULES);
    rules.put("since", MergeRule.LAST);
    return new SinkSpec(sink.source(), new TableSpec(warehouse.spec(), table, List.of(), partitioned ? List.of("region") : List.of(),
        formatVersion, mode, rules, Map.of()), null, null, null);
  }
}
