package dev.floe.e2e;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The PostgreSQL under test (wal_level=logical), as .ci/run starts it: FLOE_PG_URL, FLOE_PG_USER,
 * FLOE_PG_PASSWORD. Tests skip where it is unreachable, and fail instead when FLOE_REQUIRE_PG=1.
 */
final class SourceDatabase {
  static final String URL = env("FLOE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/floe");
  static final String USER = env("FLOE_PG_USER", "floe");
  static final String PASSWORD = env("FLOE_PG_PASSWORD", "floe");

  private SourceDatabase() {}

  static void assumeAvailable() {
    try (Connection c = connect()) {
      assumeTrue(c.isValid(5));
    } catch (SQLException e) {
      if ("1".equals(System.getenv("FLOE_REQUIRE_PG"))) {
        throw new IllegalStateException("PostgreSQL is required (FLOE_REQUIRE_PG=1) but not reachable at " + URL, e);
      }
      assumeTrue(false, "PostgreSQL not reachable at " + URL + ": " + e.getMessage());
    }
  }

  static Connection connect() throws SQLException {
    return DriverManager.getConnection(URL, USER, PASSWORD);
  }

  static void execute(String... statements) throws SQLException {
    try (Connection c = connect(); Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }
}
