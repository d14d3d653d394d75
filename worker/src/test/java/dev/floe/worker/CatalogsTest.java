package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CatalogType;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.Script;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.testing.NessieServer;
import dev.floe.worker.testing.Postgres;
import dev.floe.worker.testing.S3Endpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine keeps the table equal to the source through each kind of catalog and storage it is
 * deployed with: the embedded SQLite default, Hadoop, JDBC on PostgreSQL, a real Nessie server, and S3
 * (S3Proxy). The REST catalog runs in the e2e tests.
 */
class CatalogsTest {
  @TempDir Path dir;

  private static final List<Script> SCRIPTS = OrdersScripts.scripts().sampleStream().limit(3).collect(Collectors.toList());

  @Test
  void hadoopCatalogOnLocalFiles() {
    play(new CatalogSpec(CatalogType.HADOOP, null, dir.resolve("hadoop").toUri().toString(), null, null, Map.of()));
  }

  @Test
  void jdbcCatalogOnPostgres() {
    Postgres.assumeAvailable();
    Map<String, String> props = Map.of("jdbc.user", Postgres.USER, "jdbc.password", "${env:FLOE_TEST_PG_PASSWORD}");
    CatalogSpec spec = new CatalogSpec(CatalogType.JDBC, Postgres.URL, dir.resolve("pg-warehouse").toString(), null, null, props);
    String catalogName = "floe_" + Long.toHexString(System.nanoTime()); // a fresh catalog in the shared database
    Catalog catalog = CatalogLoader.load(catalogName, spec, new SecretResolver(Map.of("FLOE_TEST_PG_PASSWORD", Postgres.PASSWORD)::get));
    playAll(spec, catalog);
  }

  @Test
  void nessieCatalogOnItsMainBranch() throws Exception {
    try (NessieServer nessie = NessieServer.start(dir.resolve("nessie"))) {
      CatalogSpec spec = new CatalogSpec(CatalogType.NESSIE, nessie.uri(), dir.resolve("nessie-warehouse").toUri().toString(), "main", null, Map.of());
      playAll(spec, CatalogLoader.load("floe", spec, SecretResolver.fromEnvironment()));
    }
  }

  @Test
  void s3StorageThroughS3FileIo() throws Exception {
    Files.createDirectories(dir.resolve("s3"));
    try (S3Endpoint s3 = new S3Endpoint(dir.resolve("s3"), "lake")) {
      Map<String, String> props = new HashMap<>(s3.fileIoProperties());
      CatalogSpec spec = new CatalogSpec(CatalogType.JDBC, "jdbc:sqlite:" + dir.resolve("catalog.db"), "s3://lake/warehouse", null, null, props);
      playAll(spec, CatalogLoader.load("floe", spec, SecretResolver.fromEnvironment()));
      try (Stream<Path> files = Files.walk(dir.resolve("s3"))) {
        assertThat(files.filter(p -> p.toString().endsWith(".parquet"))).isNotEmpty();
      }
    }
  }

  private void play(CatalogSpec spec) {
    playAll(spec, CatalogLoader.load("floe", spec, SecretResolver.fromEnvironment()));
  }

  private static void playAll(CatalogSpec spec, Catalog catalog) {
    int i = 0;
    for (Script script : SCRIPTS) {
      ScriptPlayer.play(script, OrdersTable.sink(spec, "catalogs.orders_" + i++, 2, i % 2 == 0, WriteMode.EQUALITY_DELETES), catalog);
    }
  }
}
