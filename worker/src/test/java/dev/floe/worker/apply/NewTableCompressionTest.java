package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A new table writes zstd at level 1 unless its sink names a codec or a level; the sink's choice is kept. */
class NewTableCompressionTest {
  @TempDir Path dir;

  @Test
  void propertiesThatNameNothingGetZstdAtLevelOne() {
    Map<String, String> properties = new HashMap<>();
    TableProvisioner.withFastZstd(properties);
    assertThat(properties).containsEntry(TableProperties.PARQUET_COMPRESSION, "zstd")
        .containsEntry(TableProperties.PARQUET_COMPRESSION_LEVEL, "1");
  }

  @Test
  void aCodecOrALevelTheSinkNamesIsKept() {
    Map<String, String> snappy = new HashMap<>(Map.of(TableProperties.PARQUET_COMPRESSION, "snappy"));
    TableProvisioner.withFastZstd(snappy);
    assertThat(snappy).isEqualTo(Map.of(TableProperties.PARQUET_COMPRESSION, "snappy"));

    Map<String, String> level = new HashMap<>(Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, "9"));
    TableProvisioner.withFastZstd(level);
    assertThat(level).isEqualTo(Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, "9"));
  }

  @Test
  void aNewTablesDataFilesAreZstd() throws IOException {
    // given a sink that names no codec
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkEngine engine = new SinkEngine(OrdersTable.sink(warehouse.spec(), "codec.fresh", 2, false, null), warehouse.catalog());
    DebeziumEnvelopes orders = DebeziumEnvelopes.forTopic(OrdersTable.TOPIC).columns(OrdersTable.columns(false)).key("id");

    // when it writes a row
    engine.apply(List.of(orders.insert(0, OrdersTable.row(1, 7))), r -> {});

    // then the table records level 1 and its data file is compressed with zstd
    Table table = engine.table();
    assertThat(table.properties()).containsEntry(TableProperties.PARQUET_COMPRESSION_LEVEL, "1");
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(localPath(file.location())))) {
          assertThat(reader.getFooter().getBlocks()).allSatisfy(block -> assertThat(block.getColumns())
              .allSatisfy(column -> assertThat(column.getCodec()).isEqualTo(CompressionCodecName.ZSTD)));
        }
      }
    }
    assertThat(LocalWarehouse.rows(table)).hasSize(1);
  }

  private static Path localPath(String location) {
    return location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
  }
}
