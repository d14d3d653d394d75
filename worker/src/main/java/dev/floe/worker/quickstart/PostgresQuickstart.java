package dev.floe.worker.quickstart;

import dev.floe.worker.apply.TableLayout;
import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.runtime.SinkRunner;
import dev.floe.worker.runtime.WorkerMetrics;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The quickstart against a real PostgreSQL: Debezium's embedded connector captures one table (its
 * snapshot, then live changes) into an in-process Kafka broker, and the worker keeps a local Iceberg
 * table equal to it. Change the table while it runs and watch the changes arrive.
 */
public final class PostgresQuickstart {
  private PostgresQuickstart() {}

  /** Where to capture from, and for how long to follow live changes after catching up. */
  public record Options(String jdbcUrl, String user, String password, String table, Path warehouse, int followSeconds) {}

  /** @return whether the Iceberg table ended with as many rows as the PostgreSQL table */
  public static boolean run(Options o, PrintStream out) throws Exception {
    String topicPrefix = "floe";
    String topic = topicPrefix + "." + o.table();
    String icebergName = "quickstart." + o.table().substring(o.table().indexOf('.') + 1);
    out.printf("Floe quickstart: PostgreSQL %s table %s -> Iceberg table %s%n", o.jdbcUrl(), o.table(), icebergName);
    try (EmbeddedKafka kafka = new EmbeddedKafka()) {
      kafka.createTopic(topic, 4);
      CatalogSpec catalogSpec = CatalogSpec.local(o.warehouse().toString());
      Catalog catalog = CatalogLoader.load("floe", catalogSpec, SecretResolver.fromEnvironment());
      TableIdentifier id = TableIdentifier.parse(icebergName);
      if (catalog.tableExists(id)) {
        catalog.dropTable(id, true); // a fresh broker and replication slot: start the table afresh too
      }
      SinkSpec spec = new SinkSpec(new SourceSpec(kafka.bootstrapServers(), List.of(topic), null, "floe-quickstart-pg", null, Map.of()),
          new TableSpec(catalogSpec, icebergName, List.of(), List.of(), 2, null, Map.of(), Map.of()),
          new CommitSpec("1s", 50_000, null), null, null);
      SinkEngine engine = new SinkEngine(spec, catalog);
      SinkRunner runner = new SinkRunner(spec, engine, new WorkerMetrics(spec.sinkId()), SecretResolver.fromEnvironment());
      Thread worker = new Thread(runner, "floe-worker");
      long start = System.nanoTime();
      try (PostgresCapture capture = new PostgresCapture(o.jdbcUrl(), o.user(), o.password(), o.table(), topicPrefix, kafka.bootstrapServers())) {
        worker.start();
        long caughtUpAt = -1;
        while (true) {
          Thread.sleep(1000);
          long produced = capture.produced();
          long applied = engine.offsets().next().values().stream().mapToLong(Long::longValue).sum();
          double t = (System.nanoTime() - start) / 1e9;
          out.printf(Locale.ROOT, "  [%5.1fs] captured %,d records | applied %,d | lag %,d%n", t, produced, applied, produced - applied);
          if (!worker.isAlive()) {
            throw new IllegalStateException("the worker stopped", runner.failure());
          }
          if (produced > 0 && applied == produced && caughtUpAt < 0) {
            caughtUpAt = System.nanoTime();
            out.printf("  caught up; following live changes for %d s (change %s now and watch)%n", o.followSeconds(), o.table());
          }
          if (caughtUpAt > 0 && applied == produced && System.nanoTime() - caughtUpAt > o.followSeconds() * 1_000_000_000L) {
            break;
          }
        }
      }
      runner.stop();
      worker.join();
      runner.close();
      Table table = engine.table();
      long lakeRows = count(table);
      long sourceRows = sourceCount(o);
      out.printf("%nFloe quickstart: rows in %s: %,d; rows in PostgreSQL %s: %,d: %s%n", icebergName, lakeRows, o.table(), sourceRows,
          lakeRows == sourceRows ? "equal" : "DIFFERENT");
      out.printf("  table at %s (JDBC catalog jdbc:sqlite:%s/catalog.db)%n", table.location(), o.warehouse().toAbsolutePath());
      try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
        int shown = 0;
        for (Record r : rows) {
          if (shown++ == 5) {
            break;
          }
          StringBuilder line = new StringBuilder("  ");
          table.schema().columns().stream().filter(c -> !c.name().equals(TableLayout.LSN_COLUMN))
              .forEach(c -> line.append(c.name()).append('=').append(r.getField(c.name())).append("  "));
          out.println(line);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return lakeRows == sourceRows;
    }
  }

  private static long count(Table table) throws IOException {
    long n = 0;
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record ignored : rows) {
        n++;
      }
    }
    return n;
  }

  private static long sourceCount(Options o) throws Exception {
    try (Connection c = DriverManager.getConnection(o.jdbcUrl(), o.user(), o.password());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + o.table())) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
