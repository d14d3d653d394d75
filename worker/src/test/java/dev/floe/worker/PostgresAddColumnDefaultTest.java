package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.apply.TableProvisioner;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.DebeziumDecoder;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.testing.DebeziumCapture;
import dev.floe.worker.testing.DebeziumCapture.Captured;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.Postgres;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.StreamSupport;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code ALTER TABLE … ADD COLUMN … DEFAULT x} gives every existing row x in PostgreSQL, and
 * Debezium emits nothing for those rows: only the next events' schema carries the default. The lake
 * must hold x for them too, in both format versions and write modes, and after a worker dies
 * between the schema change and the fill of old rows (format v2).
 */
class PostgresAddColumnDefaultTest {
  private static final String TOPIC = "floe.public.floe_dflt";
  /** The statements after the snapshot; the first batch closes before the ALTER, the second straddles it. */
  private static final String[] BEFORE_ALTER = {
      "UPDATE floe_dflt SET name = 'b2' WHERE id = 2", // a newer file and a delete against the snapshot's file
      "DELETE FROM floe_dflt WHERE id = 6"};
  private static final String[] AROUND_ALTER = {
      "UPDATE floe_dflt SET name = 'e2' WHERE id = 5", // still without the new columns, in the batch that adds them
      "ALTER TABLE floe_dflt ADD COLUMN lang text DEFAULT 'en', ADD COLUMN price numeric(10,2) DEFAULT 1.50,"
          + " ADD COLUMN qty integer DEFAULT 7, ADD COLUMN note text",
      "UPDATE floe_dflt SET lang = 'fr', price = 2.25 WHERE id = 1",
      "UPDATE floe_dflt SET name = 'c2' WHERE id = 3",
      "INSERT INTO floe_dflt (id, name) VALUES (7, 'g')"};
  /**
   * Run once Debezium has emitted the events above: it reads a new column's default from the
   * catalog when it first decodes a change after the ALTER, so a SET DEFAULT before that would
   * already show in those events (see the report of issue 13).
   */
  private static final String[] LATER = {
      "ALTER TABLE floe_dflt ALTER COLUMN lang SET DEFAULT 'de'", // changes no existing row
      "UPDATE floe_dflt SET name = 'd2' WHERE id = 4",
      "INSERT INTO floe_dflt (id, name) VALUES (8, 'h')"};
  private static final int SNAPSHOT = 6;
  private static final int BEFORE = 3; // update, delete + tombstone
  private static final int AROUND = 4;
  private static final int AFTER = 2;

  @TempDir Path dir;

  @ParameterizedTest(name = "format v{0}, {1}")
  @CsvSource({"2, EQUALITY_DELETES", "2, POSITION_DELETES", "3, EQUALITY_DELETES", "3, POSITION_DELETES"})
  void rowsThatExistedBeforeAColumnWasAddedWithADefaultHoldTheDefault(int format, WriteMode mode) throws Exception {
    // given rows in the lake, captured before the source adds columns with defaults
    List<RawRecord> records = capture("format" + format + "_" + mode.name().toLowerCase());
    SinkEngine engine = engine(format, mode);
    engine.apply(records.subList(0, SNAPSHOT), DeadLetters.DISCARD);
    engine.apply(records.subList(SNAPSHOT, SNAPSHOT + BEFORE), DeadLetters.DISCARD);

    // when the batch around the ALTER, which changes only some rows, is applied, then one after a SET DEFAULT
    BatchResult r = engine.apply(records.subList(SNAPSHOT + BEFORE, SNAPSHOT + BEFORE + AROUND), DeadLetters.DISCARD);
    BatchResult later = engine.apply(records.subList(SNAPSHOT + BEFORE + AROUND, records.size()), DeadLetters.DISCARD);

    // then the lake equals PostgreSQL row for row, old rows holding the defaults
    assertThat(r.rejected()).isEmpty();
    assertThat(later.rejected()).isEmpty();
    Map<Integer, Map<String, Object>> expected = sourceRows();
    assertThat(expected.get(2)).containsEntry("lang", "en").containsEntry("qty", 7).containsEntry("price", new BigDecimal("1.50"));
    assertThat(expected.get(8)).containsEntry("lang", "de");
    assertThat(lakeRows(engine.table())).isEqualTo(expected);
    Table table = engine.table();
    if (format >= 3) {
      // Iceberg's own initial default serves the rows of files written before the column
      assertThat(table.schema().findField("lang").initialDefault().toString()).isEqualTo("en");
      assertThat(table.schema().findField("lang").writeDefault().toString()).isEqualTo("en");
      assertThat(table.schema().findField("note").initialDefault()).isNull();
      assertThat(fillSnapshots(table)).isZero();
    } else {
      assertThat(fillSnapshots(table)).isEqualTo(1);
    }
    assertThat(table.properties()).noneSatisfy((k, v) -> assertThat(k).startsWith("floe.fill."));
  }

  @Test
  void aWorkerKilledBetweenTheSchemaChangeAndTheFillFinishesTheFillOnRestart() throws Exception {
    // given a v2 table whose schema change committed, with its fill pending, when the worker died
    List<RawRecord> records = capture("crash");
    SinkEngine before = engine(2, WriteMode.POSITION_DELETES);
    before.apply(records.subList(0, SNAPSHOT), DeadLetters.DISCARD);
    before.apply(records.subList(SNAPSHOT, SNAPSHOT + BEFORE), DeadLetters.DISCARD);
    RawRecord firstAfterAlter = records.get(SNAPSHOT + BEFORE + 1);
    ChangeEvent decoded = (ChangeEvent) new DebeziumDecoder(List.of()).decode(firstAfterAlter, before.table().schema());
    TableProvisioner.evolve(before.table(), decoded.schema(), decoded.lsn());
    Table crashed = before.table();
    crashed.refresh();
    assertThat(crashed.schema().findField("lang")).isNotNull();
    assertThat(crashed.properties()).anySatisfy((k, v) -> assertThat(k).startsWith("floe.fill."));

    // when a fresh worker applies the batch the dead one had not committed
    SinkEngine restarted = engine(2, WriteMode.POSITION_DELETES);
    restarted.apply(records.subList(SNAPSHOT + BEFORE, records.size()), DeadLetters.DISCARD);

    // then the old rows are filled and the lake equals PostgreSQL
    assertThat(lakeRows(restarted.table())).isEqualTo(sourceRows());
    assertThat(restarted.table().properties()).noneSatisfy((k, v) -> assertThat(k).startsWith("floe.fill."));
    assertThat(fillSnapshots(restarted.table())).isEqualTo(1);
  }

  /** Runs the source's statements under Debezium and returns the records, in order. */
  private static List<RawRecord> capture(String name) throws Exception {
    Postgres.assumeAvailable();
    Postgres.execute("DROP TABLE IF EXISTS floe_dflt", "CREATE TABLE floe_dflt (id integer PRIMARY KEY, name text)",
        "INSERT INTO floe_dflt VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO floe_dflt VALUES (4, 'd'), (5, 'e'), (6, 'f')");
    List<Captured> captured;
    try (DebeziumCapture capture = new DebeziumCapture("floe_dflt_" + name + "_" + Long.toHexString(System.nanoTime()), "public.floe_dflt")) {
      capture.awaitRecords(SNAPSHOT, Duration.ofSeconds(90));
      Postgres.execute(BEFORE_ALTER);
      capture.awaitRecords(SNAPSHOT + BEFORE, Duration.ofSeconds(90));
      Postgres.execute(AROUND_ALTER);
      capture.awaitRecords(SNAPSHOT + BEFORE + AROUND, Duration.ofSeconds(90));
      Postgres.execute(LATER);
      captured = capture.awaitRecords(SNAPSHOT + BEFORE + AROUND + AFTER, Duration.ofSeconds(90));
    }
    List<RawRecord> out = new ArrayList<>();
    long offset = 0;
    for (Captured c : captured) {
      assertThat(c.topic()).isEqualTo(TOPIC);
      out.add(new RawRecord(TOPIC, 0, offset++, DebeziumCapture.bytes(c.key()), DebeziumCapture.bytes(c.value()),
          DebeziumCapture.headerBytes(c.headers())));
    }
    assertThat(new String(out.get(SNAPSHOT + BEFORE + 1).value())).contains("\"default\":\"en\"");
    return out;
  }

  private SinkEngine engine(int format, WriteMode mode) {
    LocalWarehouse warehouse = new LocalWarehouse(dir.resolve("warehouse"));
    SinkSpec spec = new SinkSpec(
        new SourceSpec("unused:9092", List.of(TOPIC), null, "floe-defaults", null, null),
        new TableSpec(warehouse.spec(), "lake.floe_dflt", List.of(), List.of(), format, mode, Map.of(), Map.of()),
        null, null, null);
    return new SinkEngine(spec, warehouse.catalog());
  }

  private static long fillSnapshots(Table table) {
    return StreamSupport.stream(table.snapshots().spliterator(), false)
        .map(Snapshot::summary)
        .filter(s -> "fill-defaults".equals(s.get("floe.compaction")))
        .count();
  }

  private static Map<Integer, Map<String, Object>> lakeRows(Table table) {
    Map<Integer, Map<String, Object>> out = new TreeMap<>();
    for (Map<String, Object> row : LocalWarehouse.rows(table)) {
      Map<String, Object> n = new TreeMap<>(row);
      n.remove(TableLayout.LSN_COLUMN);
      out.put((Integer) row.get("id"), n);
    }
    return out;
  }

  /** PostgreSQL's rows, in the Java types Iceberg's generic records use. */
  private static Map<Integer, Map<String, Object>> sourceRows() throws Exception {
    Map<Integer, Map<String, Object>> out = new TreeMap<>();
    try (Connection c = Postgres.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM floe_dflt")) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        Map<String, Object> row = new TreeMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          Object v = rs.getObject(i);
          row.put(md.getColumnName(i), v instanceof BigDecimal d ? d : v);
        }
        out.put(rs.getInt("id"), row);
      }
    }
    return out;
  }
}
