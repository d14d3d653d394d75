package dev.floe.worker.apply;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.ClusteredEqualityDeleteWriter;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Writes a batch's final rows as data files and the replaced or deleted keys as equality deletes
 * (key columns only), each delete in the partition where the key's stored row lives.
 */
public final class EqualityDeltaWriter {
  private EqualityDeltaWriter() {}

  /**
   * The files written for one batch; in the position-deletes mode also the deletion vectors they
   * replace and the data files their deletes point into (which must still exist at commit).
   */
  public record Written(List<DataFile> dataFiles, List<DeleteFile> deleteFiles, List<DeleteFile> replacedDeleteFiles,
      Set<String> referencedDataFiles, Map<String, List<Object[]>> rowsOfFiles) {
    public Written(List<DataFile> dataFiles, List<DeleteFile> deleteFiles, List<DeleteFile> replacedDeleteFiles,
        Set<String> referencedDataFiles) {
      this(dataFiles, deleteFiles, replacedDeleteFiles, referencedDataFiles, Map.of());
    }

    public Written(List<DataFile> dataFiles, List<DeleteFile> deleteFiles) {
      this(dataFiles, deleteFiles, List.of(), Set.of());
    }

    public Written(Rows rows, List<DeleteFile> deleteFiles, List<DeleteFile> replacedDeleteFiles, Set<String> referencedDataFiles) {
      this(rows.files(), deleteFiles, replacedDeleteFiles, referencedDataFiles, rows.rowsOfFiles());
    }
  }

  /**
   * Data files written, and where known (unpartitioned tables) the rows each holds, in position
   * order: the index takes its new entries from them instead of reading the files back.
   */
  public record Rows(List<DataFile> files, Map<String, List<Object[]>> rowsOfFiles) {}

  /**
   * @param rows final rows to insert, in table column order
   * @param deletes keys to delete with the stored row that tells their partition (for an
   *     unpartitioned table the row may be just the key)
   * @param deleteSpecs the specs of live data files: each key's delete goes to each
   */
  public static Written write(Table table, TableLayout layout, List<Object[]> rows, List<Object[]> deletes,
      List<PartitionSpec> deleteSpecs) {
    Schema schema = layout.schema();
    Schema deleteSchema = schema.select(layout.keyNames());
    int[] equalityIds = deleteSchema.columns().stream().mapToInt(f -> f.fieldId()).toArray();
    GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(table)
        .dataSchema(schema)
        .dataFileFormat(FileFormat.PARQUET)
        .deleteFileFormat(FileFormat.PARQUET)
        .equalityFieldIds(equalityIds)
        .equalityDeleteRowSchema(deleteSchema)
        .build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
        .format(FileFormat.PARQUET)
        .operationId(UUID.randomUUID().toString())
        .build();
    long targetSize = PropertyUtil.propertyAsLong(table.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    PartitionKey partitionKey = new PartitionKey(layout.spec(), schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());

    List<DeleteFile> deleteFiles = new ArrayList<>();
    if (!deletes.isEmpty()) {
      GenericRecord emptyKey = GenericRecord.create(deleteSchema); // copied per key: no name-map lookup per record
      int[] keyColumns = deleteSchema.columns().stream().mapToInt(f -> schema.columns().indexOf(schema.findField(f.fieldId()))).toArray();
      ClusteredEqualityDeleteWriter<Record> writer = new ClusteredEqualityDeleteWriter<>(factory, files, table.io(), targetSize);
      try (writer) {
        for (PartitionSpec spec : deleteSpecs) {
          // The clustered writer wants its input grouped by spec and partition.
          PartitionKey key = new PartitionKey(spec, schema);
          Map<StructLike, List<Record>> byPartition = new LinkedHashMap<>();
          for (Object[] stored : deletes) {
            StructLike partition = null;
            if (spec.isPartitioned()) {
              key.partition(wrapper.wrap(layout.toRecord(stored)));
              partition = key.copy();
            }
            byPartition.computeIfAbsent(partition, p -> new ArrayList<>()).add(keyRecord(emptyKey, keyColumns, stored));
          }
          for (Map.Entry<StructLike, List<Record>> e : byPartition.entrySet()) {
            for (Record r : e.getValue()) {
              writer.write(r, spec, e.getKey());
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      deleteFiles.addAll(writer.result().deleteFiles());
    }

    return new Written(writeRowsTracked(table, layout, rows), deleteFiles, List.of(), Set.of());
  }

  /**
   * Writes final rows as data files of the table's current spec, rolled at the target size: one
   * file per partition, on this thread. A batch large enough to split across both cores comes from
   * a backlog, whose next batch the other core polls and decodes meanwhile: split, the rows cost
   * 10–40% more CPU to encode (two writers' buffers and dictionaries, and each file's first page
   * tries a dictionary on unique columns), the table got twice the files, and the drain gained
   * nothing (full-size {@code orders} and the contest at a tenth, docs/benchmarks.md, 2026-12-06).
   */
  public static List<DataFile> writeRows(Table table, TableLayout layout, List<Object[]> rows) {
    return writeRowsTracked(table, layout, rows).files();
  }

  /** The writer factory of a table's data files (Parquet, the table's properties): batches, compaction and the warm-up share it. */
  public static DataFileWriters dataFileWriters(Table table, Schema schema) {
    return new DataFileWriters(table, schema);
  }

  /** {@link #writeRows}, telling which rows each file holds where that is known. */
  public static Rows writeRowsTracked(Table table, TableLayout layout, List<Object[]> rows) {
    Schema schema = layout.schema();
    DataFileWriters factory = dataFileWriters(table, schema);
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
        .format(FileFormat.PARQUET).operationId(UUID.randomUUID().toString()).build();
    long targetSize = PropertyUtil.propertyAsLong(table.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    PartitionKey partitionKey = new PartitionKey(layout.spec(), schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    List<DataFile> dataFiles = new ArrayList<>();
    if (!rows.isEmpty()) {
      FanoutDataWriter<Record> writer = new FanoutDataWriter<>(factory, files, table.io(), targetSize);
      // one record refilled per row: the Parquet writer encodes a row as it is added and keeps nothing of it
      GenericRecord reused = layout.reusableRecord();
      try (writer) {
        for (Object[] row : rows) {
          Record r = layout.fill(reused, row);
          StructLike partition = null;
          if (layout.partitioned()) {
            partitionKey.partition(wrapper.wrap(r));
            partition = partitionKey;
          }
          writer.write(r, layout.spec(), partition);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      dataFiles.addAll(writer.result().dataFiles());
    }
    return new Rows(dataFiles, layout.partitioned() ? Map.of() : rowsOfFiles(dataFiles, rows));
  }

  /**
   * Unpartitioned, the rows went into one rolling writer in order: each file holds the next
   * {@code recordCount} of them. Nothing is told when the counts do not add up.
   */
  private static Map<String, List<Object[]>> rowsOfFiles(List<DataFile> files, List<Object[]> rows) {
    Map<String, List<Object[]>> out = new HashMap<>();
    int from = 0;
    for (DataFile f : files) {
      int to = from + (int) f.recordCount();
      if (to > rows.size()) {
        return Map.of();
      }
      out.put(f.location(), rows.subList(from, to));
      from = to;
    }
    return from == rows.size() ? out : Map.of();
  }

  /** The key columns of a stored row, as a record of the delete schema. */
  private static Record keyRecord(GenericRecord emptyKey, int[] keyColumns, Object[] stored) {
    GenericRecord r = emptyKey.copy();
    for (int i = 0; i < keyColumns.length; i++) {
      r.set(i, stored[keyColumns[i]]);
    }
    return r;
  }

}
