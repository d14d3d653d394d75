package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CCF BDCI 2022 data-lake contest's merge rules at small scale: a base load, then batches of
 * upserts over a uuid key where {@code requests} is summed over all batches, {@code name} keeps the
 * last non-null value and every other column the last value. Checked against a plain oracle; the
 * batches after the base load are applied packed ({@code PackedResolver}: a uuid key, the sum and
 * last-non-null combined with the merge state's stored values).
 */
class ContestMergeRulesTest {
  private static final String TOPIC = "contest.public.requests";

  @TempDir Path dir;

  /**
   * @param base the base load's rows
   * @param batch each later batch's upserts (110,000: the per-key loops of a batch then run split
   *     over two cores, see {@code TwoCores})
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "base {0}, {2} batches of {1}")
  @org.junit.jupiter.params.provider.CsvSource({"2000, 600, 5", "60000, 110000, 2"})
  void requestsAreSummedNamesKeepTheLastNonNullAndTheRestTheLastValue(int base, int batchSize, int batches) {
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(sink(warehouse), warehouse.catalog());
    DebeziumEnvelopes source = DebeziumEnvelopes.forTopic(TOPIC).columns(List.of(
        ConnectColumn.uuid("uuid").required(), ConnectColumn.string("name"), ConnectColumn.int64("requests"),
        ConnectColumn.string("ip"), ConnectColumn.microTimestamp("ts"))).key("uuid");
    Map<UUID, Map<String, Object>> oracle = new HashMap<>();
    Random random = new Random(2022);
    List<UUID> keys = new ArrayList<>();

    for (int batch = 0; batch <= batches; batch++) {
      int size = batch == 0 ? base : batchSize;
      List<RawRecord> records = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        UUID key = batch == 0 || random.nextInt(4) == 0 ? new UUID(random.nextLong(), random.nextLong()) : keys.get(random.nextInt(keys.size()));
        if (!oracle.containsKey(key)) {
          keys.add(key);
        }
        Map<String, Object> row = new HashMap<>();
        row.put("uuid", key);
        row.put("name", random.nextInt(3) == 0 ? null : "name-" + random.nextInt(1000));
        row.put("requests", (long) random.nextInt(100));
        row.put("ip", "10.0." + random.nextInt(255) + "." + random.nextInt(255));
        row.put("ts", LocalDateTime.of(2022, 11, 1, 0, 0).plusSeconds(random.nextInt(1_000_000)));
        records.add(source.insert(Math.floorMod(key.hashCode(), 3), row)); // a key stays in its partition
        oracle.merge(key, row, ContestMergeRulesTest::oracleMerge);
      }
      assertThat(engine.apply(records, DeadLetters.DISCARD).rejected()).isEmpty();
    }

    Map<UUID, Map<String, Object>> actual = new HashMap<>();
    for (Map<String, Object> row : LocalWarehouse.rows(engine.table())) {
      row.remove(dev.floe.worker.apply.TableLayout.LSN_COLUMN);
      Map<String, Object> previous = actual.put((UUID) row.get("uuid"), row);
      assertThat(previous).as("duplicate key: %s and %s", previous, row).isNull();
    }
    assertThat(actual).isEqualTo(oracle);
    // every batch after the base load (which creates the table) took the packed path
    assertThat(engine.packedBatchesApplied()).as("batches applied packed").isEqualTo(batches);
  }

  @org.junit.jupiter.api.Test
  void uuidKeysWhoseHalvesMixToOneLongStayApartInAPackedBatch() {
    // given keys whose two halves the packed resolver mixes to the same long (h*C + l alike), and another
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(sink(warehouse), warehouse.catalog());
    DebeziumEnvelopes source = DebeziumEnvelopes.forTopic(TOPIC).columns(List.of(
        ConnectColumn.uuid("uuid").required(), ConnectColumn.string("name"), ConnectColumn.int64("requests"))).key("uuid");
    UUID a = new UUID(42, 7);
    UUID b = new UUID(43, 7 - 0x9E3779B97F4A7C15L);
    UUID c = new UUID(44, 7 - 2 * 0x9E3779B97F4A7C15L);
    engine.apply(List.of(source.insert(0, contestRow(a, "a", 1)), source.insert(0, contestRow(b, "b", 10))), DeadLetters.DISCARD);

    // when a packed batch adds to both, deletes and re-creates one, and creates a third of the same mix
    engine.apply(List.of(source.insert(0, contestRow(a, null, 2)), source.insert(0, contestRow(b, "b2", 20)),
        source.delete(0, Map.of("uuid", b)), source.insert(0, contestRow(b, null, 5)), source.insert(0, contestRow(c, "c", 100)),
        source.insert(0, contestRow(a, null, 3))), DeadLetters.DISCARD);

    // then each key kept its own sum and name
    assertThat(engine.packedBatchesApplied()).isEqualTo(1);
    Map<UUID, List<Object>> actual = new HashMap<>();
    for (Map<String, Object> row : LocalWarehouse.rows(engine.table())) {
      actual.put((UUID) row.get("uuid"), java.util.Arrays.asList(row.get("name"), row.get("requests")));
    }
    assertThat(actual).isEqualTo(Map.of(a, List.of("a", 6L), b, java.util.Arrays.asList(null, 5L), c, List.of("c", 100L)));
  }

  private static Map<String, Object> contestRow(UUID key, String name, long requests) {
    Map<String, Object> row = new HashMap<>();
    row.put("uuid", key);
    row.put("name", name);
    row.put("requests", requests);
    return row;
  }

  private static Map<String, Object> oracleMerge(Map<String, Object> old, Map<String, Object> next) {
    Map<String, Object> merged = new HashMap<>(next);
    merged.put("requests", (Long) old.get("requests") + (Long) next.get("requests"));
    if (next.get("name") == null) {
      merged.put("name", old.get("name"));
    }
    return merged;
  }

  private static SinkSpec sink(LocalWarehouse warehouse) {
    return new SinkSpec(
        new SourceSpec("unused:9092", List.of(TOPIC), null, "floe-contest", null, null),
        new TableSpec(warehouse.spec(), "contest.requests", List.of(), List.of(), 2, null,
            Map.of("requests", MergeRule.SUM, "name", MergeRule.LAST_NON_NULL), Map.of()),
        null, null, null);
  }
}
