package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.quickstart.PostgresQuickstart;
import dev.floe.worker.testing.Postgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code floe quickstart --postgres}: a real table's snapshot captured by Debezium ends up in Iceberg. */
class PostgresQuickstartTest {
  @TempDir Path dir;

  @Test
  void aPostgresTableIsCapturedIntoAnEqualIcebergTable() throws Exception {
    Postgres.assumeAvailable();
    Postgres.execute("DROP TABLE IF EXISTS qs_items",
        "CREATE TABLE qs_items (id bigint PRIMARY KEY, name text, price numeric(10,2))",
        "INSERT INTO qs_items SELECT g, 'item ' || g, g * 0.5 FROM generate_series(1, 500) g");
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    boolean equal = PostgresQuickstart.run(new PostgresQuickstart.Options(Postgres.URL, Postgres.USER, Postgres.PASSWORD,
        "public.qs_items", dir, 1), new PrintStream(out, true, StandardCharsets.UTF_8));

    assertThat(equal).as(out.toString(StandardCharsets.UTF_8)).isTrue();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("rows in quickstart.qs_items: 500; rows in PostgreSQL public.qs_items: 500: equal");
  }
}
