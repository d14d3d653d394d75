package dev.floe.e2e;

import dev.floe.worker.testing.Postgres;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * Random SQL against two source tables, deterministic from a seed: inserts, updates (some touching
 * only small columns, so the large TOASTed text arrives as Debezium's placeholder), deletes,
 * re-inserts of deleted keys, updates of the Iceberg partition column, primary-key updates to a
 * free key that leave the TOASTed note alone (the old key's delete and the new key's create land in
 * different Kafka partitions, with one LSN), an {@code ALTER TABLE ADD
 * COLUMN}, a {@code TRUNCATE}, and multi-row transactions.
 *
 * <ul>
 *   <li>{@code orders}: bigint key, partitioned by region in Iceberg (equality deletes);
 *   <li>{@code accounts}: composite key (tenant text, id integer), every other mapped type
 *       (position deletes, format v3).
 * </ul>
 */
final class Workload {
  static final String[] REGIONS = {"eu", "us", "apac"};
  private final String schema;
  private final Random random;
  private final int keys;
  private boolean couponAdded;
  private int statements;

  Workload(String schema, long seed, int keys) {
    this.schema = schema;
    this.random = new Random(seed);
    this.keys = keys;
  }

  /** Creates the schema and its tables (REPLICA IDENTITY DEFAULT: deletes carry only the key). */
  void create() throws SQLException {
    Postgres.execute(
        "DROP SCHEMA IF EXISTS " + schema + " CASCADE",
        "CREATE SCHEMA " + schema,
        "CREATE TABLE " + schema + ".orders (id bigint PRIMARY KEY, region text NOT NULL, qty integer, price numeric(12,2),"
            + " note text, paid boolean, placed timestamptz, ship_date date, ref uuid, tags integer[])",
        "ALTER TABLE " + schema + ".orders ALTER COLUMN note SET STORAGE EXTERNAL", // out of line: TOAST placeholders
        "CREATE TABLE " + schema + ".accounts (tenant text, id integer, balance numeric(14,2), email varchar(80),"
            + " ratio double precision, small smallint, opened timestamp, profile jsonb, avatar bytea, labels text[],"
            + " PRIMARY KEY (tenant, id))");
  }

  /** Runs {@code count} statements (transactions count as one), returning how many ran. */
  int run(int count) throws SQLException {
    try (Connection c = Postgres.connect()) {
      for (int i = 0; i < count; i++) {
        int dice = random.nextInt(100);
        if (dice < 6) {
          transaction(c);
        } else if (dice < 55) {
          orders(c);
        } else {
          accounts(c);
        }
        if (!couponAdded && statements > count / 2) {
          try (Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + schema + ".orders ADD COLUMN coupon text");
            // Existing rows get these defaults without any event (issue 13). Nothing writes them
            // explicitly: JsonConverter would turn an explicit NULL into the default.
            s.execute("ALTER TABLE " + schema + ".orders ADD COLUMN channel text DEFAULT 'web', ADD COLUMN priority integer DEFAULT 3");
          }
          couponAdded = true;
        }
        statements++;
      }
    }
    return count;
  }

  /** Empties the accounts table (once per run is enough to cover it). */
  void truncateAccounts() throws SQLException {
    Postgres.execute("TRUNCATE " + schema + ".accounts");
  }

  private void transaction(Connection c) throws SQLException {
    c.setAutoCommit(false);
    try {
      int n = 2 + random.nextInt(5);
      for (int i = 0; i < n; i++) {
        if (random.nextBoolean()) {
          orders(c);
        } else {
          accounts(c);
        }
      }
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private void orders(Connection c) throws SQLException {
    long id = 1 + random.nextInt(keys);
    int op = random.nextInt(100);
    String t = schema + ".orders";
    if (op < 35) {
      String coupon = couponAdded ? ", coupon" : "";
      try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " (id, region, qty, price, note, paid, placed, ship_date, ref, tags" + coupon
          + ") VALUES (?,?,?,?,?,?,?,?,?,?" + (couponAdded ? ",?" : "") + ") ON CONFLICT (id) DO UPDATE SET qty = EXCLUDED.qty, price = EXCLUDED.price")) {
        p.setLong(1, id);
        p.setString(2, REGIONS[random.nextInt(REGIONS.length)]);
        setNullable(p, 3, random.nextInt(10) == 0 ? null : random.nextInt(1000) - 100);
        p.setBigDecimal(4, random.nextInt(8) == 0 ? null : BigDecimal.valueOf(random.nextInt(10_000_000), 2));
        p.setString(5, note());
        p.setObject(6, random.nextInt(5) == 0 ? null : random.nextBoolean());
        p.setObject(7, OffsetDateTime.of(2026, 1 + random.nextInt(12), 1 + random.nextInt(28), random.nextInt(24), random.nextInt(60),
            random.nextInt(60), random.nextInt(1_000_000) * 1000, ZoneOffset.ofHours(random.nextInt(25) - 12)));
        p.setObject(8, LocalDate.of(2020 + random.nextInt(7), 1 + random.nextInt(12), 1 + random.nextInt(28)));
        p.setObject(9, random.nextInt(6) == 0 ? null : new UUID(random.nextLong(), random.nextLong()));
        p.setArray(10, c.createArrayOf("int4", new Integer[] {random.nextInt(9), random.nextInt(9)}));
        if (couponAdded) {
          p.setString(11, random.nextBoolean() ? null : "C" + random.nextInt(100));
        }
        p.executeUpdate();
      }
    } else if (op < 65) { // small columns only: the TOASTed note arrives as a placeholder
      update(c, "UPDATE " + t + " SET qty = ?, paid = ? WHERE id = ?", random.nextInt(500), random.nextBoolean(), id);
    } else if (op < 75) {
      update(c, "UPDATE " + t + " SET note = ?, price = ? WHERE id = ?", note(), BigDecimal.valueOf(random.nextInt(100_000), 2), id);
    } else if (op < 80) { // moves the row to another Iceberg partition
      update(c, "UPDATE " + t + " SET region = ? WHERE id = ?", REGIONS[random.nextInt(REGIONS.length)], id);
    } else if (op < 85) { // primary-key update: d + tombstone + c, the c's unchanged TOASTed note a placeholder
      long to = 1 + random.nextInt(keys);
      update(c, "UPDATE " + t + " SET id = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM " + t + " WHERE id = ?)", to, id, to);
    } else {
      update(c, "DELETE FROM " + t + " WHERE id = ?", id);
    }
  }

  private void accounts(Connection c) throws SQLException {
    String tenant = "t" + random.nextInt(4);
    int id = 1 + random.nextInt(Math.max(1, keys / 4));
    int op = random.nextInt(100);
    String t = schema + ".accounts";
    if (op < 45) {
      try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " VALUES (?,?,?,?,?,?,?,?::jsonb,?,?)"
          + " ON CONFLICT (tenant, id) DO UPDATE SET balance = EXCLUDED.balance, email = EXCLUDED.email, profile = EXCLUDED.profile")) {
        p.setString(1, tenant);
        p.setInt(2, id);
        p.setBigDecimal(3, BigDecimal.valueOf(random.nextLong() % 1_000_000_000_000L, 2));
        p.setString(4, random.nextInt(6) == 0 ? null : "user" + random.nextInt(10_000) + "@example.com");
        p.setObject(5, random.nextInt(6) == 0 ? null : random.nextGaussian() * 1e6);
        p.setObject(6, (short) (random.nextInt(65536) - 32768));
        p.setTimestamp(7, Timestamp.valueOf(java.time.LocalDateTime.of(2025, 1 + random.nextInt(12), 1 + random.nextInt(28), random.nextInt(24),
            random.nextInt(60), random.nextInt(60), random.nextInt(1_000_000) * 1000)));
        p.setString(8, random.nextInt(5) == 0 ? null : "{\"plan\": \"p" + random.nextInt(3) + "\", \"seats\": " + random.nextInt(50) + "}");
        byte[] avatar = new byte[random.nextInt(24)];
        random.nextBytes(avatar);
        p.setBytes(9, avatar);
        p.setArray(10, c.createArrayOf("text", new String[] {"a" + random.nextInt(5), random.nextBoolean() ? null : "b"}));
        p.executeUpdate();
      }
    } else if (op < 80) {
      update(c, "UPDATE " + t + " SET balance = balance + ?, small = ? WHERE tenant = ? AND id = ?",
          BigDecimal.valueOf(random.nextInt(100_000) - 50_000, 2), (short) random.nextInt(1000), tenant, id);
    } else {
      update(c, "DELETE FROM " + t + " WHERE tenant = ? AND id = ?", tenant, id);
    }
  }

  /** A large text now and then (out of line, TOASTed), short otherwise, sometimes null. */
  private String note() {
    int dice = random.nextInt(10);
    if (dice == 0) {
      return null;
    }
    if (dice < 4) {
      StringBuilder b = new StringBuilder();
      while (b.length() < 6_000) {
        b.append(Long.toHexString(random.nextLong()));
      }
      return b.toString();
    }
    return "note " + random.nextInt(1_000);
  }

  private static void update(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        p.setObject(i + 1, args[i]);
      }
      p.executeUpdate();
    }
  }

  private static void setNullable(PreparedStatement p, int i, Integer v) throws SQLException {
    if (v == null) {
      p.setNull(i, java.sql.Types.INTEGER);
    } else {
      p.setInt(i, v);
    }
  }

  /** The source tables of this workload, as Debezium's table include list names them. */
  List<String> tables() {
    List<String> out = new ArrayList<>();
    out.add(schema + ".orders");
    out.add(schema + ".accounts");
    return out;
  }
}
