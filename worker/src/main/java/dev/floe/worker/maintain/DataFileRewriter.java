package dev.floe.worker.maintain;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import dev.floe.worker.apply.DataFileWriters;
import dev.floe.worker.apply.DeleteCache;
import dev.floe.worker.apply.EqualityDeltaWriter;
import dev.floe.worker.apply.LiveRows;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * Reads a group of data files with their deletes applied and writes the live rows again, bin-packed
 * toward the target size and partitioned by the table's current spec.
 */
public final class DataFileRewriter {
  private DataFileRewriter() {}

  /** The files written and the rows they hold. */
  public record Rewritten(List<DataFile> files, long rows) {}

  public static Rewritten rewrite(Table table, List<FileScanTask> group, long targetFileSize) {
    return rewrite(table, group, targetFileSize, Map.of());
  }

  /**
   * Rewrites the group, setting every row's column of each field id in {@code fill} to the value
   * given (a column's default for rows written before the column existed).
   */
  public static Rewritten rewrite(Table table, List<FileScanTask> group, long targetFileSize, Map<Integer, Object> fill) {
    Schema schema = table.schema();
    DataFileWriters factory = EqualityDeltaWriter.dataFileWriters(table, schema);
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
        .format(FileFormat.PARQUET).operationId("compact-" + UUID.randomUUID()).build();
    PartitionKey partitionKey = new PartitionKey(table.spec(), schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    long rows = 0;
    FanoutDataWriter<Record> writer = new FanoutDataWriter<>(factory, files, table.io(), targetFileSize);
    DeleteCache deletes = DeleteCache.ofHeap(); // the group's files share their delete files: each is loaded once
    // one record refilled per row: the Parquet writer encodes a row as it is added and keeps nothing of it
    GenericRecord out = GenericRecord.create(schema);
    try (writer) {
      for (FileScanTask task : group) {
        try (CloseableIterable<Record> live = LiveRows.read(table, task, schema, deletes)) {
          for (Record r : live) {
            copy(r, out, schema);
            fill.forEach((id, value) -> out.setField(schema.findField(id).name(), value));
            StructLike partition = null;
            if (table.spec().isPartitioned()) {
              partitionKey.partition(wrapper.wrap(out));
              partition = partitionKey;
            }
            writer.write(out, table.spec(), partition);
            rows++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Rewritten(new ArrayList<>(writer.result().dataFiles()), rows);
  }

  private static void copy(Record r, GenericRecord out, Schema schema) {
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      out.set(i, r.getField(columns.get(i).name()));
    }
  }
}
