package dev.floe.worker.catalog;

import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.SecretResolver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * Builds an Iceberg catalog from a {@link CatalogSpec} through Iceberg's own catalog loading; the
 * embedded default is a SQLite JDBC catalog beside local files.
 */
public final class CatalogLoader {
  private CatalogLoader() {}

  public static Catalog load(String name, CatalogSpec spec, SecretResolver secrets) {
    return CatalogUtil.buildIcebergCatalog(name, properties(spec, secrets), LocalFiles.configure(new Configuration()));
  }

  /** The catalog properties Iceberg receives, secrets resolved; never log the result. */
  static Map<String, String> properties(CatalogSpec spec, SecretResolver secrets) {
    Map<String, String> p = new HashMap<>();
    switch (spec.type()) {
      case LOCAL -> {
        Path warehouse = Path.of(stripFileScheme(spec.warehouse())).toAbsolutePath();
        createDirectories(warehouse);
        p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
        // WAL lets readers and writers of other processes proceed together; the busy timeout
        // turns a brief lock into a wait instead of a failed commit.
        p.put(CatalogProperties.URI, "jdbc:sqlite:" + warehouse.resolve("catalog.db")
            + "?journal_mode=WAL&busy_timeout=30000");
        p.put("jdbc.schema-version", "V1");
        p.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toString());
      }
      case JDBC -> {
        p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
        p.put("jdbc.schema-version", "V1");
      }
      case REST -> p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
      case NESSIE -> {
        p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_NESSIE);
        if (spec.ref() != null) {
          p.put("ref", spec.ref());
        }
      }
      case HADOOP -> p.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_HADOOP);
    }
    if (spec.uri() != null && spec.type() != dev.floe.worker.config.CatalogType.LOCAL) {
      p.put(CatalogProperties.URI, secrets.resolve("table.catalog.uri", spec.uri()));
    }
    if (spec.warehouse() != null && spec.type() != dev.floe.worker.config.CatalogType.LOCAL) {
      p.put(CatalogProperties.WAREHOUSE_LOCATION, spec.warehouse());
    }
    p.putAll(secrets.secretDirectory("table.catalog.secretRef", spec.secretRef()));
    p.putAll(secrets.resolveAll("table.catalog.properties", spec.properties()));
    return p;
  }


  private static String stripFileScheme(String location) {
    return location.startsWith("file:") ? location.substring("file:".length()).replaceFirst("^//", "") : location;
  }

  private static void createDirectories(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot create warehouse directory " + dir, e);
    }
  }
}
