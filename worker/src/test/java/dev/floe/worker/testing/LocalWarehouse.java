package dev.floe.worker.testing;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.SecretResolver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/** The embedded default warehouse (SQLite catalog, local Parquet files) in a test directory. */
public final class LocalWarehouse {
  private final Path dir;
  private final Catalog catalog;

  public LocalWarehouse(Path dir) {
    this.dir = dir;
    this.catalog = CatalogLoader.load("floe", spec(), SecretResolver.fromEnvironment());
  }

  public CatalogSpec spec() {
    return CatalogSpec.local(dir.toString());
  }

  public Catalog catalog() {
    return catalog;
  }

  /** Every row of the table as read by Iceberg's generic reader (deletes applied), by column name. */
  public static List<Map<String, Object>> rows(Table table) {
    table.refresh();
    List<Map<String, Object>> out = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record r : records) {
        Map<String, Object> row = new HashMap<>();
        for (Types.NestedField f : table.schema().columns()) {
          row.put(f.name(), r.getField(f.name()));
        }
        out.add(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
