package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Two workers of one sink: while one commits a change from before the source added a column with
 * a default, the other adds the column (and, in format v2, fills the old rows). The first must not
 * land files without the column after the fill: its batch is planned again, and its row holds the
 * default like every row that existed before the column.
 */
class ColumnDefaultRaceTest {
  private static final String TOPIC = "floe.public.accounts";

  @TempDir Path dir;

  @ParameterizedTest(name = "format v{0}, {1}")
  @CsvSource({"2, EQUALITY_DELETES", "2, POSITION_DELETES", "3, EQUALITY_DELETES", "3, POSITION_DELETES"})
  void aBatchPlannedBeforeAnotherWorkerAddedADefaultedColumnIsPlannedAgain(int format, WriteMode mode) {
    // given rows in the table, and a change from before the ALTER still to be committed by worker A
    DebeziumEnvelopes source = DebeziumEnvelopes.forTopic(TOPIC)
        .columns(List.of(ConnectColumn.int64("id"), ConnectColumn.string("name"))).key("id");
    List<RawRecord> existing = List.of(source.insert(0, row(1, "a", null)), source.insert(0, row(2, "b", null)), source.insert(0, row(3, "c", null)));
    RawRecord lateOldChange = source.update(0, row(2, "b2", null));
    source.columns(List.of(ConnectColumn.int64("id"), ConnectColumn.string("name"), ConnectColumn.string("lang")));
    List<RawRecord> afterAlter = List.of(withDefault(source.insert(1, row(5, "e", "fr"))), withDefault(source.insert(1, row(6, "f", "en"))));
    LocalWarehouse warehouse = new LocalWarehouse(dir.resolve("warehouse"));
    SinkEngine workerA = engine(warehouse, format, mode);
    SinkEngine workerB = engine(warehouse, format, mode);
    workerA.apply(existing, DeadLetters.DISCARD);

    // when worker B adds the column (and commits its batch) between A's planning and A's commit
    AtomicBoolean once = new AtomicBoolean();
    workerA.beforeCommit(() -> {
      if (once.compareAndSet(false, true)) {
        workerB.apply(afterAlter, DeadLetters.DISCARD);
      }
    });
    var result = workerA.apply(List.of(lateOldChange), DeadLetters.DISCARD);

    // then every row from before the column holds its default, A having planned again
    Map<Long, List<Object>> rows = new TreeMap<>();
    for (Map<String, Object> r : LocalWarehouse.rows(workerA.table())) {
      rows.put((Long) r.get("id"), List.of(r.get("name"), String.valueOf(r.get("lang"))));
    }
    assertThat(rows).isEqualTo(Map.of(
        1L, List.of("a", "en"), 2L, List.of("b2", "en"), 3L, List.of("c", "en"), 5L, List.of("e", "fr"), 6L, List.of("f", "en")));
    assertThat(result.commitAttempts()).isGreaterThan(1);
  }

  private static Map<String, Object> row(long id, String name, String lang) {
    Map<String, Object> row = new HashMap<>();
    row.put("id", id);
    row.put("name", name);
    row.put("lang", lang);
    return row;
  }

  /** The record as Debezium writes it after {@code ADD COLUMN lang text DEFAULT 'en'}. */
  private static RawRecord withDefault(RawRecord r) {
    String value = new String(r.value(), StandardCharsets.UTF_8)
        .replace("{\"type\":\"string\",\"optional\":true,\"field\":\"lang\"}", "{\"type\":\"string\",\"optional\":true,\"default\":\"en\",\"field\":\"lang\"}");
    assertThat(value).contains("\"default\":\"en\"");
    return new RawRecord(r.topic(), r.partition(), r.offset(), r.key(), value.getBytes(StandardCharsets.UTF_8), r.headers());
  }

  private static SinkEngine engine(LocalWarehouse warehouse, int format, WriteMode mode) {
    SinkSpec spec = new SinkSpec(
        new SourceSpec("unused:9092", List.of(TOPIC), null, "floe-race", null, null),
        new TableSpec(warehouse.spec(), "lake.accounts", List.of(), List.of(), format, mode, Map.of(), Map.of()),
        null, null, null);
    return new SinkEngine(spec, warehouse.catalog());
  }
}
