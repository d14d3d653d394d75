package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.testing.DebeziumCapture;
import dev.floe.worker.testing.DebeziumCapture.Captured;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.Postgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Primary-key updates of rows with a TOASTed column, from a real PostgreSQL 15 through Debezium:
 * {@code UPDATE ... SET id = new} arrives as the old key's {@code d} and tombstone and the new key's
 * {@code c}, whose unchanged note is Debezium's placeholder. The records are placed in three
 * partitions by Kafka's default partitioner (murmur2 of the key bytes), so the two halves of a
 * move mostly land in different partitions, and are fed to the engine with one partition paused
 * in every other delivery (its records come in the next one), so that a {@code c} is applied
 * before its {@code d} or after it, and with a new engine instance before every delivery. After
 * each catch-up delivery the table equals what PostgreSQL held at that point, row for row; in
 * both write modes.
 */
class KeyMoveToastTest {
  private static final String SCHEMA = "floe_keymove";
  private static final String TABLE = SCHEMA + ".orders";
  private static final String TOPIC = "floe." + TABLE;
  private static final int PARTITIONS = 3;
  private static final int SEGMENTS = 6;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What Debezium emitted for the workload, and PostgreSQL's rows after each segment of it. */
  private record Captures(List<Captured> records, List<Integer> recordsAfterSegment, List<Map<Long, Map<String, Object>>> rowsAfterSegment) {}

  private static Captures source;

  @TempDir Path dir;

  @BeforeAll
  static void captureTheWorkload() throws Exception {
    Postgres.assumeAvailable();
    Postgres.execute(
        "DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE",
        "CREATE SCHEMA " + SCHEMA,
        "CREATE TABLE " + TABLE + " (id bigint PRIMARY KEY, note text, qty integer)",
        "ALTER TABLE " + TABLE + " ALTER COLUMN note SET STORAGE EXTERNAL"); // out of line even when compressible
    KeyMoveWorkload workload = new KeyMoveWorkload(new Random(20_260_131L));
    workload.insert(1); // one row for the snapshot, so the capture is seen to be streaming
    String slot = "floe_keymove_" + Long.toHexString(System.nanoTime());
    List<Integer> counts = new ArrayList<>();
    List<Map<Long, Map<String, Object>>> rows = new ArrayList<>();
    List<Captured> captured;
    try (DebeziumCapture capture = new DebeziumCapture(slot, TABLE)) {
      capture.awaitRecords(1, Duration.ofSeconds(90));
      for (int s = 0; s < SEGMENTS; s++) {
        workload.storyOfAMovedKey();
        workload.random(25);
        counts.add(workload.records());
        rows.add(postgresRows());
      }
      captured = capture.awaitRecords(workload.records(), Duration.ofSeconds(120));
    }
    saveAKeyUpdateSample(captured);
    source = new Captures(captured, counts, rows);
  }

  @Test
  void equalityDeletesFormatV2() {
    assertTheLakeFollowsPostgres(WriteMode.EQUALITY_DELETES, 2);
  }

  @Test
  void positionDeletesFormatV2() {
    assertTheLakeFollowsPostgres(WriteMode.POSITION_DELETES, 2);
  }

  @Test
  void positionDeletesFormatV3() {
    assertTheLakeFollowsPostgres(WriteMode.POSITION_DELETES, 3);
  }

  @Test
  void theWorkloadMovesTOASTedRowsAcrossPartitionsWithThePlaceholder() {
    List<RawRecord> records = partitioned(source.records());
    long movesAcross = records.stream()
        .filter(r -> r.value() != null && r.headers().containsKey("__debezium.oldkey"))
        .filter(r -> new String(r.value()).contains("__debezium_unavailable_value"))
        .filter(r -> partitionOf(r.headers().get("__debezium.oldkey")) != r.partition())
        .count();
    assertThat(movesAcross).as("key updates whose c carries the TOAST placeholder, from another partition").isGreaterThanOrEqualTo(10);
    assertThat(records).filteredOn(r -> r.headers().containsKey("__debezium.newkey")).as("d and tombstone of each move")
        .hasSize(2 * (int) records.stream().filter(r -> r.headers().containsKey("__debezium.oldkey")).count());
  }

  /**
   * Given the captured workload in three partitions, when delivery 2s carries segment s of every
   * partition but one (paused) and delivery 2s+1 the paused partition's records, each to a new
   * engine, then after every catch-up the table equals PostgreSQL's rows at the end of segment s.
   */
  private void assertTheLakeFollowsPostgres(WriteMode mode, int formatVersion) {
    LocalWarehouse warehouse = new LocalWarehouse(dir.resolve("warehouse"));
    SinkSpec sink = new SinkSpec(
        new SourceSpec("unused:9092", List.of(TOPIC), null, "floe-keymove", null, null),
        new TableSpec(warehouse.spec(), "lake.keymove_" + mode.name().toLowerCase() + "_v" + formatVersion, List.of(), List.of(),
            formatVersion, mode, Map.of(), Map.of()),
        null, null, null);
    List<RawRecord> records = partitioned(source.records());
    int from = 0;
    for (int s = 0; s < SEGMENTS; s++) {
      int pausedPartition = s % PARTITIONS;
      int to = source.recordsAfterSegment().get(s); // counts include the snapshot's record, which comes first
      List<RawRecord> segment = records.subList(from, to);
      List<RawRecord> delivered = segment.stream().filter(r -> r.partition() != pausedPartition).toList();
      List<RawRecord> paused = segment.stream().filter(r -> r.partition() == pausedPartition).toList();
      deliver(sink, warehouse, delivered, "segment " + s + " without partition " + pausedPartition);
      deliver(sink, warehouse, paused, "segment " + s + ": partition " + pausedPartition + " catching up");
      assertThat(lakeRows(new SinkEngine(sink, warehouse.catalog())))
          .as("%s v%d: the lake after segment %d, partition %d paused then caught up", mode, formatVersion, s, pausedPartition)
          .isEqualTo(source.rowsAfterSegment().get(s));
      from = to;
    }
  }

  /** Hands the records to a new engine (the previous one crashed), as one batch. */
  private static void deliver(SinkSpec sink, LocalWarehouse warehouse, List<RawRecord> records, String what) {
    if (records.isEmpty()) {
      return;
    }
    SinkEngine engine = new SinkEngine(sink, warehouse.catalog());
    BatchResult result = engine.apply(records, DeadLetters.DISCARD);
    assertThat(result.rejected()).as("rejected records of %s", what).isEmpty();
  }

  /** The captured records with the partitions and offsets Kafka's default partitioner gives them. */
  private static List<RawRecord> partitioned(List<Captured> captured) {
    Map<Integer, Long> next = new HashMap<>();
    List<RawRecord> out = new ArrayList<>();
    for (Captured c : captured) {
      byte[] key = DebeziumCapture.bytes(c.key());
      int partition = partitionOf(key);
      long offset = next.merge(partition, 1L, Long::sum) - 1;
      out.add(new RawRecord(c.topic(), partition, offset, key, DebeziumCapture.bytes(c.value()), DebeziumCapture.headerBytes(c.headers())));
    }
    return out;
  }

  /** Kafka's default partitioner for a keyed record. */
  private static int partitionOf(byte[] key) {
    return Utils.toPositive(Utils.murmur2(key)) % PARTITIONS;
  }

  private static Map<Long, Map<String, Object>> lakeRows(SinkEngine engine) {
    Map<Long, Map<String, Object>> out = new TreeMap<>();
    if (engine.table() == null) {
      return out;
    }
    for (Map<String, Object> row : LocalWarehouse.rows(engine.table())) {
      Map<String, Object> n = new TreeMap<>(row);
      n.remove(TableLayout.LSN_COLUMN);
      n.put("note", shortly((String) n.get("note")));
      long id = ((Number) n.get("id")).longValue();
      n.put("id", id);
      if (out.put(id, n) != null) {
        throw new AssertionError("key " + id + " appears twice in the lake");
      }
    }
    return out;
  }

  private static Map<Long, Map<String, Object>> postgresRows() throws SQLException {
    Map<Long, Map<String, Object>> out = new TreeMap<>();
    try (Connection c = Postgres.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, note, qty FROM " + TABLE)) {
      while (rs.next()) {
        Map<String, Object> row = new TreeMap<>();
        row.put("id", rs.getLong("id"));
        row.put("note", shortly(rs.getString("note")));
        row.put("qty", rs.getObject("qty") == null ? null : rs.getInt("qty"));
        out.put(rs.getLong("id"), row);
      }
    }
    return out;
  }

  /** A 10 KB note as its length and first characters (unique per note), so failures stay readable. */
  private static String shortly(String note) {
    return note == null || note.length() < 40 ? note : note.length() + " chars: " + note.substring(0, 24) + "...";
  }

  /**
   * With {@code -Dfloe.capture.write=DIR}: the first key update whose {@code c} carries the
   * placeholder, its {@code d}, tombstone and {@code c} with their headers, as a test sample.
   */
  private static void saveAKeyUpdateSample(List<Captured> captured) throws Exception {
    String target = System.getProperty("floe.capture.write");
    if (target == null || target.isBlank()) {
      return;
    }
    for (int i = 2; i < captured.size(); i++) {
      Captured c = captured.get(i);
      if (c.headers().containsKey("__debezium.oldkey") && c.value().contains("__debezium_unavailable_value")) {
        StringBuilder out = new StringBuilder();
        for (Captured r : captured.subList(i - 2, i + 1)) {
          Map<String, Object> line = new LinkedHashMap<>();
          line.put("topic", r.topic());
          line.put("key", r.key() == null ? null : JSON.readTree(r.key()));
          line.put("value", r.value() == null ? null : JSON.readTree(r.value()));
          line.put("headers", r.headers());
          out.append(JSON.writeValueAsString(line)).append('\n');
        }
        Path file = Path.of(target).resolve("pg15-debezium-3.6.1-key-update.jsonl");
        Files.createDirectories(file.getParent());
        Files.writeString(file, out);
        return;
      }
    }
  }

  /**
   * Random SQL over a few keys, deterministic from the seed: inserts with 10 KB notes, updates of
   * qty alone (the note arrives as the placeholder), updates of the note, deletes, and key updates
   * that leave the note alone; and the stories that went wrong: the old key's note changed just
   * before the move, the old key re-inserted, changed, deleted and re-inserted again, and moved
   * again. Counts the records Debezium emits for it.
   */
  private static final class KeyMoveWorkload {
    private static final int KEYS = 12;
    private final Random random;
    private final TreeSet<Long> live = new TreeSet<>();
    private int records;

    KeyMoveWorkload(Random random) {
      this.random = random;
    }

    int records() {
      return records;
    }

    void storyOfAMovedKey() throws SQLException {
      long a = live.isEmpty() ? free() : pick();
      if (!live.contains(a)) {
        insert(a);
      }
      setNote(a);                    // the old key's TOASTed note changes just before the move
      long b = move(a);              // b takes a's note, unchanged (a placeholder in b's c)
      insert(a);                     // the old key comes back
      setQty(a);
      delete(a);
      insert(a);
      setQty(a);                     // changed without touching its note
      move(a);                       // and moves again, note unchanged
      setQty(b);
      move(b);                       // the first moved row moves on
    }

    void random(int statements) throws SQLException {
      for (int i = 0; i < statements; i++) {
        int dice = random.nextInt(100);
        if (live.isEmpty() || dice < 25) {
          if (live.size() < KEYS) {
            insert(free());
          }
        } else if (dice < 45) {
          setQty(pick());
        } else if (dice < 55) {
          setNote(pick());
        } else if (dice < 65) {
          delete(pick());
        } else if (live.size() < KEYS) {
          move(pick());
        }
      }
    }

    void insert(long id) throws SQLException {
      execute("INSERT INTO " + TABLE + " (id, note, qty) VALUES (?, ?, ?)", id, bigNote(), random.nextInt(100));
      live.add(id);
      records += 1;
    }

    void setQty(long id) throws SQLException {
      execute("UPDATE " + TABLE + " SET qty = ? WHERE id = ?", random.nextInt(100), id);
      records += 1;
    }

    void setNote(long id) throws SQLException {
      execute("UPDATE " + TABLE + " SET note = ? WHERE id = ?", bigNote(), id);
      records += 1;
    }

    void delete(long id) throws SQLException {
      execute("DELETE FROM " + TABLE + " WHERE id = ?", id);
      live.remove(id);
      records += 2; // d and tombstone
    }

    /** {@code UPDATE ... SET id = <free key>}: the note is left alone. Returns the new key. */
    long move(long id) throws SQLException {
      long to = free();
      execute("UPDATE " + TABLE + " SET id = ? WHERE id = ?", to, id);
      live.remove(id);
      live.add(to);
      records += 3; // d, tombstone, c
      return to;
    }

    private long pick() {
      List<Long> keys = new ArrayList<>(live);
      return keys.get(random.nextInt(keys.size()));
    }

    private long free() {
      List<Long> free = new ArrayList<>();
      for (long k = 1; k <= KEYS + 20; k++) {
        if (!live.contains(k)) {
          free.add(k);
        }
      }
      return free.get(random.nextInt(Math.min(free.size(), KEYS)));
    }

    /** About 10 KB of hex, unique: stored out of line (STORAGE EXTERNAL), so TOASTed. */
    private String bigNote() {
      StringBuilder b = new StringBuilder();
      while (b.length() < 10_000) {
        b.append(Long.toHexString(random.nextLong() | Long.MIN_VALUE));
      }
      return b.toString();
    }

    private static void execute(String sql, Object... args) throws SQLException {
      try (Connection c = Postgres.connect(); PreparedStatement p = c.prepareStatement(sql)) {
        for (int i = 0; i < args.length; i++) {
          p.setObject(i + 1, args[i]);
        }
        assertThat(p.executeUpdate()).as(sql).isEqualTo(1);
      }
    }
  }
}
