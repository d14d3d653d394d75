package dev.floe.worker.apply;

import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.PartitionUtil;

/** Reads one data file's live rows: its deletes applied, columns added since projected as nulls. */
public final class LiveRows {
  private LiveRows() {}

  public static CloseableIterable<Record> read(Table table, FileScanTask task, Schema projection) {
    return read(table, task, projection, null);
  }

  /** As {@link #read(Table, FileScanTask, Schema)}, its delete files taken from {@code cache} when it holds them (null: none). */
  public static CloseableIterable<Record> read(Table table, FileScanTask task, Schema projection, DeleteCache cache) {
    GenericDeleteFilter deletes = cache == null
        ? new GenericDeleteFilter(table.io(), task, table.schema(), projection)
        : new GenericDeleteFilter(table.io(), task, table.schema(), projection) {
          @Override
          protected DeleteLoader newDeleteLoader() {
            return cache.loader(this::loadInputFile);
          }
        };
    Schema required = deletes.requiredSchema();
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(task.file().location()))
        .project(required)
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(required, fileSchema, constants))
        .build();
    return deletes.filter(rows);
  }

  /**
   * Reads every row of one data file, deleted or not (for a caller that knows which positions are
   * live), projected; columns the file lacks come as their defaults or null.
   */
  public static CloseableIterable<Record> readAll(Table table, DataFile file, Schema projection) {
    return Parquet.read(table.io().newInputFile(file.location(), file.fileSizeInBytes()))
        .project(projection)
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(projection, fileSchema, Map.of()))
        .build();
  }
}
