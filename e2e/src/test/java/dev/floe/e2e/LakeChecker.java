package dev.floe.e2e;

import dev.floe.worker.testing.Postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Compares a PostgreSQL table with its Iceberg table row by row, every column by value, after
 * bringing both sides' Java types to one form (numbers as longs, decimals by value, timestamps
 * with zone in UTC, bytes as hex). Also gives an order-independent checksum per side, the quick
 * answer for large tables.
 */
final class LakeChecker {
  private LakeChecker() {}

  /** What one side holds: rows by key (the key columns joined), and a checksum over them. */
  record Side(Map<String, Map<String, Object>> rows, long checksum) {
    static Side of(Map<String, Map<String, Object>> rows) {
      long sum = 0;
      for (Map.Entry<String, Map<String, Object>> e : rows.entrySet()) {
        sum += (long) e.getKey().hashCode() * 31 + e.getValue().toString().hashCode();
      }
      return new Side(rows, sum);
    }
  }

  /** The first differences between the source table and the lake table; empty when they are equal. */
  static List<String> differences(String sourceTable, List<String> key, Table lake, int limit) throws SQLException {
    Side source = source(sourceTable, key);
    lake.refresh();
    Side target = lake(lake, key);
    List<String> out = new ArrayList<>();
    if (source.checksum() == target.checksum() && source.rows().size() == target.rows().size()) {
      return out;
    }
    out.add(sourceTable + ": source " + source.rows().size() + " rows (checksum " + source.checksum() + "), lake "
        + target.rows().size() + " rows (checksum " + target.checksum() + ")");
    for (Map.Entry<String, Map<String, Object>> e : source.rows().entrySet()) {
      Map<String, Object> inLake = target.rows().get(e.getKey());
      if (inLake == null) {
        out.add("  missing in the lake: " + e.getKey() + " " + e.getValue());
      } else if (!inLake.equals(e.getValue())) {
        StringBuilder d = new StringBuilder("  differs: " + e.getKey());
        e.getValue().forEach((col, v) -> {
          if (!Objects.equals(v, inLake.get(col))) {
            d.append(" ").append(col).append(": source=").append(abbrev(v)).append(" lake=").append(abbrev(inLake.get(col)));
          }
        });
        out.add(d.toString());
      }
      if (out.size() > limit) {
        return out;
      }
    }
    for (String k : target.rows().keySet()) {
      if (!source.rows().containsKey(k)) {
        out.add("  only in the lake: " + k + " " + target.rows().get(k));
        if (out.size() > limit) {
          return out;
        }
      }
    }
    return out;
  }

  static Side source(String table, List<String> key) throws SQLException {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    try (Connection c = Postgres.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        Map<String, Object> row = new TreeMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          row.put(md.getColumnName(i), normalise(jdbcValue(rs, i, md.getColumnTypeName(i))));
        }
        rows.put(keyOf(row, key), row);
      }
    }
    return Side.of(rows);
  }

  static Side lake(Table table, List<String> key) {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        Map<String, Object> row = new TreeMap<>();
        for (Types.NestedField f : table.schema().columns()) {
          if (!f.name().startsWith("_floe")) {
            row.put(f.name(), normalise(r.getField(f.name())));
          }
        }
        String k = keyOf(row, key);
        if (rows.put(k, row) != null) {
          rows.put(k + " (DUPLICATE)", row);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Side.of(rows);
  }

  private static String keyOf(Map<String, Object> row, List<String> key) {
    StringBuilder b = new StringBuilder();
    for (String k : key) {
      b.append(b.length() == 0 ? "" : "/").append(row.get(k));
    }
    return b.toString();
  }

  private static Object jdbcValue(ResultSet rs, int i, String type) throws SQLException {
    if (rs.getObject(i) == null) {
      return null;
    }
    return switch (type) {
      case "int2", "int4", "int8" -> rs.getLong(i);
      case "float4", "float8" -> rs.getDouble(i);
      case "bytea" -> ByteBuffer.wrap(rs.getBytes(i));
      case "date" -> rs.getObject(i, LocalDate.class);
      case "timestamp" -> rs.getObject(i, LocalDateTime.class);
      case "timestamptz" -> rs.getObject(i, OffsetDateTime.class);
      case "numeric" -> rs.getBigDecimal(i);
      case "uuid" -> rs.getObject(i, UUID.class);
      case "bool" -> rs.getBoolean(i);
      default -> {
        if (type.startsWith("_")) {
          Array a = rs.getArray(i);
          yield java.util.Arrays.asList((Object[]) a.getArray());
        }
        yield rs.getString(i);
      }
    };
  }

  private static Object normalise(Object v) {
    if (v instanceof Integer || v instanceof Short || v instanceof Long) {
      return ((Number) v).longValue();
    }
    if (v instanceof Float f) {
      return f.doubleValue();
    }
    if (v instanceof OffsetDateTime t) {
      return t.withOffsetSameInstant(ZoneOffset.UTC);
    }
    if (v instanceof BigDecimal d) {
      return d.stripTrailingZeros().toPlainString();
    }
    if (v instanceof ByteBuffer b) {
      byte[] bytes = new byte[b.remaining()];
      b.duplicate().get(bytes);
      return HexFormat.of().formatHex(bytes);
    }
    if (v instanceof CharSequence s) {
      return s.toString();
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      l.forEach(x -> out.add(normalise(x)));
      return out;
    }
    return v;
  }

  private static String abbrev(Object v) {
    String s = String.valueOf(v);
    return s.length() > 60 ? s.substring(0, 57) + "..." : s;
  }
}
