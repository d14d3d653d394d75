package dev.floe.worker.commit;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.kafka.common.TopicPartition;

/**
 * Commits one batch as one snapshot: its data files, its delete files, files a truncate removes,
 * and the sink's offsets merged with those the table held when the batch was planned.
 */
public final class BatchCommitter {
  public static final String SINK_PROPERTY = "floe.sink";

  private BatchCommitter() {}

  /** Everything one batch commits. */
  public record Commit(
      List<DataFile> dataFiles,
      List<DeleteFile> deleteFiles,
      List<DataFile> removedDataFiles,
      List<DeleteFile> removedDeleteFiles,
      Set<String> referencedDataFiles,
      Map<TopicPartition, Long> batchNextOffsets,
      Long truncateLsn) {}

  /**
   * @param basedOn the table state the batch was planned on: its current snapshot id (or null for
   *     an empty table) and the sink offsets it held
   * @return the new snapshot's id
   * @throws ConcurrentSinkCommitException when the same sink committed after {@code basedOn}
   */
  public static long commit(Table table, String sinkId, Long basedOnSnapshotId, SinkOffsets basedOn, Commit c) {
    if (!(table instanceof HasTableOperations)) {
      throw new IllegalArgumentException("table " + table.name() + " does not expose its operations; cannot commit offsets safely");
    }
    Table guarded = new BaseTable(
        new OffsetGuardedOperations(((HasTableOperations) table).operations(), sinkId, basedOnSnapshotId),
        table.name());
    RowDelta delta = guarded.newRowDelta();
    c.dataFiles().forEach(delta::addRows);
    c.deleteFiles().forEach(delta::addDeletes);
    c.removedDataFiles().forEach(delta::removeRows);
    c.removedDeleteFiles().forEach(delta::removeDeletes);
    if (basedOnSnapshotId != null) {
      delta.validateFromSnapshot(basedOnSnapshotId);
    }
    if (!c.referencedDataFiles().isEmpty()) {
      // Deletes by position must land on the files they point into: a compaction that replaced
      // one, or a concurrent delete on the same file, sends the batch back for re-planning.
      delta.validateDataFilesExist(c.referencedDataFiles())
          .validateDeletedFiles()
          .conflictDetectionFilter(Expressions.alwaysTrue())
          .validateNoConflictingDeleteFiles();
    }
    delta.set(OffsetLedger.offsetsKey(sinkId), OffsetLedger.encode(OffsetLedger.merge(basedOn, c.batchNextOffsets())));
    if (c.truncateLsn() != null) {
      delta.set(OffsetLedger.truncateKey(sinkId), String.valueOf(c.truncateLsn()));
    }
    delta.set(SINK_PROPERTY, sinkId);
    delta.commit();
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }
}
