package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.DeadLetters;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.testing.DebeziumCapture;
import dev.floe.worker.testing.DebeziumCapture.Captured;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.Postgres;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lake equals the source for every type of DESIGN.md's mapping: rows written to a real
 * PostgreSQL are captured by Debezium's embedded connector (JSON with schemas, as Kafka Connect
 * writes them), applied by the engine, read back from Iceberg and compared with PostgreSQL's own
 * values, exactly. Also covers snapshot reads, REPLICA IDENTITY DEFAULT deletes, TOAST placeholders,
 * a primary-key update and TRUNCATE. Set {@code -Dfloe.capture.write=DIR} to save the captured
 * records as test samples.
 */
class PostgresRoundTripTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void everyMappedTypeRoundTripsExactlyAndTheLakeEqualsTheSource() throws Exception {
    Postgres.assumeAvailable();
    givenSourceTables();
    Postgres.execute(
        "INSERT INTO floe_types VALUES (1, 32767, 2147483647, 9007199254740993, 3.25, 1.0000000000000002, true,"
            + " 'héllo ☃', 'v', '\\xDEADBEEF', '1969-07-20', '13:45:56.123456', '2024-02-29 23:59:59.999999',"
            + " '2024-06-01 12:00:00.000001+02', -12345678.1234, 3.14159265358979323846,"
            + " 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": 1}', '{\"b\": [1, 2]}', 'happy', '{1,2,3}', '{\"x\",\"y\"}')",
        "INSERT INTO floe_types VALUES (2, -32768, -2147483648, -9223372036854775808, -0.5, -1e300, false,"
            + " '', '', '\\x', '1900-03-01', '00:00:00', '1900-01-01 00:00:00.5', '1970-01-01 00:00:00+00',"
            + " 0.0001, 123456789012345678901234567890.5, '00000000-0000-0000-0000-000000000000', '[]', '{}', 'sad', '{}', '{NULL,\"\"}')");

    String slot = "floe_rt_" + Long.toHexString(System.nanoTime());
    List<Captured> captured;
    Map<Long, Map<String, Object>> toastBeforeTruncate;
    try (DebeziumCapture capture = new DebeziumCapture(slot, "public.floe_types,public.floe_toast")) {
      capture.awaitRecords(2, Duration.ofSeconds(90)); // the snapshot: two 'r' events
      Postgres.execute(
          "INSERT INTO floe_types (id) VALUES (3)",
          "UPDATE floe_types SET c_text = 'updated', c_numeric = 1.5 WHERE id = 1",
          "DELETE FROM floe_types WHERE id = 2",
          "INSERT INTO floe_toast VALUES (1, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g), 1)",
          "UPDATE floe_toast SET small = 2 WHERE id = 1", // 'big' is TOASTed and unchanged: a placeholder
          "UPDATE floe_toast SET id = 7 WHERE id = 1", // key change: delete + tombstone + create
          "INSERT INTO floe_toast VALUES (2, 'short', 5)");
      toastBeforeTruncate = rows("floe_toast");
      Postgres.execute("TRUNCATE floe_toast");
      captured = capture.awaitRecords(6 + 6 + 1, Duration.ofSeconds(90));
    }
    saveSamples(captured);

    // floe_types: every type, exactly as PostgreSQL holds it
    SinkEngine types = engine("floe.public.floe_types", "lake.floe_types");
    BatchResult r = types.apply(records(captured, "floe.public.floe_types"), DeadLetters.DISCARD);
    assertThat(r.rejected()).isEmpty();
    assertThat(icebergRows(types)).isEqualTo(rows("floe_types"));

    // floe_toast: placeholders keep the stored value; the key change moves the row
    List<RawRecord> toast = records(captured, "floe.public.floe_toast");
    assertThat(captured).anyMatch(c -> c.value() != null && c.value().contains("__debezium_unavailable_value"));
    SinkEngine toastSink = engine("floe.public.floe_toast", "lake.floe_toast");
    toastSink.apply(toast.subList(0, 1), DeadLetters.DISCARD); // insert alone: stored before the placeholder arrives
    toastSink.apply(toast.subList(1, toast.size() - 1), DeadLetters.DISCARD);
    assertThat(icebergRows(toastSink)).isEqualTo(toastBeforeTruncate);
    BatchResult truncate = toastSink.apply(toast.subList(toast.size() - 1, toast.size()), DeadLetters.DISCARD);
    assertThat(truncate.truncated()).isTrue();
    assertThat(icebergRows(toastSink)).isEmpty();
  }

  private static void givenSourceTables() throws Exception {
    Postgres.execute(
        "DROP TABLE IF EXISTS floe_types", "DROP TABLE IF EXISTS floe_toast", "DROP TYPE IF EXISTS floe_mood",
        "CREATE TYPE floe_mood AS ENUM ('sad', 'ok', 'happy')",
        "CREATE TABLE floe_types (id bigint PRIMARY KEY, c_smallint smallint, c_int integer, c_bigint bigint,"
            + " c_real real, c_double double precision, c_bool boolean, c_text text, c_varchar varchar(40),"
            + " c_bytea bytea, c_date date, c_time time, c_timestamp timestamp, c_timestamptz timestamptz,"
            + " c_numeric numeric(12,4), c_numeric_var numeric, c_uuid uuid, c_json json, c_jsonb jsonb,"
            + " c_enum floe_mood, c_int_array integer[], c_text_array text[])",
        "CREATE TABLE floe_toast (id integer PRIMARY KEY, big text, small integer)",
        "ALTER TABLE floe_toast ALTER COLUMN big SET STORAGE EXTERNAL"); // out of line even when compressible
  }

  private SinkEngine engine(String topic, String table) {
    LocalWarehouse warehouse = new LocalWarehouse(dir.resolve("warehouse"));
    SinkSpec spec = new SinkSpec(
        new SourceSpec("unused:9092", List.of(topic), null, "floe-roundtrip", null, null),
        new TableSpec(warehouse.spec(), table, List.of(), List.of(), 2, null, Map.of(), Map.of()),
        null, null, null);
    return new SinkEngine(spec, warehouse.catalog());
  }

  private static List<RawRecord> records(List<Captured> captured, String topic) {
    List<RawRecord> out = new ArrayList<>();
    long offset = 0;
    for (Captured c : captured) {
      if (c.topic().equals(topic)) {
        out.add(new RawRecord(topic, 0, offset++, DebeziumCapture.bytes(c.key()), DebeziumCapture.bytes(c.value()),
            DebeziumCapture.headerBytes(c.headers())));
      }
    }
    return out;
  }

  private static Map<Long, Map<String, Object>> icebergRows(SinkEngine engine) {
    Map<Long, Map<String, Object>> out = new TreeMap<>();
    for (Map<String, Object> row : LocalWarehouse.rows(engine.table())) {
      Map<String, Object> n = new TreeMap<>();
      row.forEach((k, v) -> n.put(k, normalise(v)));
      assertThat(n.remove(TableLayout.LSN_COLUMN)).as("the LSN of the row's last change").isNotNull();
      out.put(((Number) row.get("id")).longValue(), n);
    }
    return out;
  }

  /** PostgreSQL's rows as JDBC reads them, in the Java types Iceberg's generic records use. */
  private static Map<Long, Map<String, Object>> rows(String table) throws Exception {
    Map<Long, Map<String, Object>> out = new TreeMap<>();
    try (Connection c = Postgres.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        Map<String, Object> row = new TreeMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          row.put(md.getColumnName(i), normalise(jdbcValue(rs, i, md.getColumnTypeName(i), md.getColumnName(i))));
        }
        out.put(rs.getLong("id"), row);
      }
    }
    return out;
  }

  private static Object jdbcValue(ResultSet rs, int i, String type, String name) throws Exception {
    if (rs.getObject(i) == null) {
      return null;
    }
    return switch (type) {
      case "int2", "int4" -> rs.getInt(i);
      case "int8" -> rs.getLong(i);
      case "float4" -> rs.getFloat(i);
      case "float8" -> rs.getDouble(i);
      case "bytea" -> ByteBuffer.wrap(rs.getBytes(i));
      case "date" -> rs.getObject(i, LocalDate.class);
      case "time" -> rs.getObject(i, LocalTime.class);
      case "timestamp" -> rs.getObject(i, LocalDateTime.class);
      case "timestamptz" -> rs.getObject(i, OffsetDateTime.class);
      case "numeric" -> name.equals("c_numeric_var") ? rs.getBigDecimal(i).toPlainString() : rs.getBigDecimal(i);
      case "uuid" -> rs.getObject(i, UUID.class);
      case "_int4", "_text" -> Arrays.asList((Object[]) rs.getArray(i).getArray());
      default -> rs.getObject(i) instanceof Boolean b ? b : rs.getString(i);
    };
  }

  private static Object normalise(Object v) {
    if (v instanceof OffsetDateTime t) {
      return t.withOffsetSameInstant(ZoneOffset.UTC);
    }
    if (v instanceof Long l) {
      return l;
    }
    if (v instanceof BigDecimal d) {
      return d.stripTrailingZeros().toPlainString() + "/scale";
    }
    return v;
  }

  private static void saveSamples(List<Captured> captured) throws Exception {
    String target = System.getProperty("floe.capture.write");
    if (target == null || target.isBlank()) {
      return;
    }
    StringBuilder out = new StringBuilder();
    for (Captured c : captured) {
      Map<String, Object> line = new HashMap<>();
      line.put("topic", c.topic());
      line.put("key", c.key() == null ? null : JSON.readTree(c.key()));
      line.put("value", c.value() == null ? null : JSON.readTree(c.value()));
      line.put("headers", c.headers());
      out.append(JSON.writeValueAsString(line)).append('\n');
    }
    Path file = Path.of(target).resolve("pg15-debezium-3.6.1.jsonl");
    Files.createDirectories(file.getParent());
    Files.writeString(file, out);
  }
}
