package dev.floe.worker.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The machine's PostgreSQL with logical decoding, as started by {@code .ci/run}. Tests that need it
 * are skipped where it is not running, unless {@code FLOE_REQUIRE_PG=1} (CI), where they fail.
 */
public final class Postgres {
  public static final String URL = env("FLOE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/floe");
  public static final String USER = env("FLOE_PG_USER", "floe");
  public static final String PASSWORD = env("FLOE_PG_PASSWORD", "floe");

  private Postgres() {}

  public static Connection connect() throws SQLException {
    return DriverManager.getConnection(URL, USER, PASSWORD);
  }

  /** Skips the calling test where PostgreSQL is not available and not required. */
  public static void assumeAvailable() {
    try (Connection c = connect(); Statement s = c.createStatement(); var rs = s.executeQuery("SHOW wal_level")) {
      rs.next();
      if (!"logical".equals(rs.getString(1))) {
        throw new IllegalStateException("PostgreSQL at " + URL + " runs with wal_level=" + rs.getString(1) + "; run deploy/scripts/postgres-logical.sh");
      }
    } catch (SQLException e) {
      if ("1".equals(System.getenv("FLOE_REQUIRE_PG"))) {
        throw new IllegalStateException("PostgreSQL is required (FLOE_REQUIRE_PG=1) but not reachable at " + URL, e);
      }
      assumeTrue(false, "PostgreSQL not reachable at " + URL + ": " + e.getMessage());
    }
  }

  public static void execute(String... sql) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    }
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }
}
