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
  /** Offset-map re-merges after other workers' commits before the batch is sent back for re-planning. */
  private static final int MAX_REBASES = 20;

  private BatchCommitter() {}

  /** Everything one batch commits. */
  public record Commit(
      List<DataFile> dataFiles,
      List<DeleteFile> deleteFiles,
      List<DataFile> removedDataFiles,
      List<DeleteFile> removedDeleteFiles,
      Set<String> referencedDataFiles,
      Map<TopicPartition, Long> batchNextOffsets,
      Long truncateLsn,
      String movesFile,
      boolean rebaseable,
      Integer plannedSchemaId,
      List<StopPoint> stops,
      List<StopPoint> skips) {

    public Commit {
      stops = List.copyOf(stops);
      skips = List.copyOf(skips);
    }

    /** A batch's commit that stops at no record and skips none. */
    public Commit(List<DataFile> dataFiles, List<DeleteFile> deleteFiles, List<DataFile> removedDataFiles,
        List<DeleteFile> removedDeleteFiles, Set<String> referencedDataFiles, Map<TopicPartition, Long> batchNextOffsets,
        Long truncateLsn, String movesFile, boolean rebaseable, Integer plannedSchemaId) {
      this(dataFiles, deleteFiles, removedDataFiles, removedDeleteFiles, referencedDataFiles, batchNextOffsets, truncateLsn,
          movesFile, rebaseable, plannedSchemaId, List.of(), List.of());
    }

    /** A commit of no files: it only moves offsets, records stop points or skips. */
    public static Commit offsetsOnly(SinkOffsets held, Map<TopicPartition, Long> next, List<StopPoint> stops, List<StopPoint> skips) {
      return new Commit(List.of(), List.of(), List.of(), List.of(), Set.of(), next, held.truncateLsn(), held.movesFile(), true, null,
          stops, skips);
    }

    /** A commit that moves no key changes and does not mind the table's schema changing after it was planned. */
    public Commit(List<DataFile> dataFiles, List<DeleteFile> deleteFiles, List<DataFile> removedDataFiles,
        List<DeleteFile> removedDeleteFiles, Set<String> referencedDataFiles, Map<TopicPartition, Long> batchNextOffsets,
        Long truncateLsn) {
      this(dataFiles, deleteFiles, removedDataFiles, removedDeleteFiles, referencedDataFiles, batchNextOffsets, truncateLsn,
          null, true, null);
    }
  }

  /**
   * @param basedOn the table state the batch was planned on: its current snapshot id (or null for
   *     an empty table) and the sink offsets it held
   * @return the new snapshot's id
   * @throws ConcurrentSinkCommitException when the same sink committed to one of this batch's
   *     partitions (or truncated) after {@code basedOn}
   */
  public static long commit(Table table, String sinkId, Long basedOnSnapshotId, SinkOffsets basedOn, Commit c) {
    Long offsetsFrom = basedOnSnapshotId;
    SinkOffsets held = basedOn;
    for (int rebase = 0; ; rebase++) {
      try {
        return commitOnce(table, sinkId, basedOnSnapshotId, offsetsFrom, held, c);
      } catch (ConcurrentSinkCommitException e) {
        table.refresh();
        SinkOffsets now = OffsetLedger.read(table, sinkId);
        // A batch that rewrote rows of keys other workers own (settling a key change) must be re-planned.
        if (rebase >= MAX_REBASES || !c.rebaseable() || !OffsetLedger.untouched(held, now, c.batchNextOffsets().keySet())) {
          throw e;
        }
        // Another worker of this sink committed its own partitions meanwhile: the batch's files
        // stay valid (Iceberg still validates them from the planned snapshot), only the offset map
        // is merged again, onto what that worker wrote.
        offsetsFrom = table.currentSnapshot().snapshotId();
        held = now;
      }
    }
  }

  private static long commitOnce(Table table, String sinkId, Long basedOnSnapshotId, Long offsetsFrom, SinkOffsets basedOn, Commit c) {
    if (!(table instanceof HasTableOperations)) {
      throw new IllegalArgumentException("table " + table.name() + " does not expose its operations; cannot commit offsets safely");
    }
    Table guarded = new BaseTable(
        new OffsetGuardedOperations(((HasTableOperations) table).operations(), sinkId, offsetsFrom, c.plannedSchemaId()),
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
      // one sends the batch back for re-planning. Position deletes of other workers on the same
      // file do not conflict (each worker deletes only its own keys' rows); a second deletion
      // vector for one file does, and Iceberg refuses that on its own (validateAddedDVs).
      delta.validateDataFilesExist(c.referencedDataFiles())
          .validateDeletedFiles()
          .conflictDetectionFilter(Expressions.alwaysTrue());
    }
    Map<TopicPartition, Long> merged = OffsetLedger.merge(basedOn, c.batchNextOffsets());
    delta.set(OffsetLedger.offsetsKey(sinkId), OffsetLedger.encode(merged));
    // Stop points and skips ride along with the offsets (read from the same snapshot), so each
    // commit carries them forward until the offsets move past them.
    List<StopPoint> stops = OffsetLedger.mergeStops(basedOn, c.stops(), merged);
    if (!stops.isEmpty()) {
      delta.set(OffsetLedger.stoppedKey(sinkId), OffsetLedger.encodePoints(stops));
    }
    List<StopPoint> skips = OffsetLedger.mergeSkips(basedOn, c.skips());
    if (!skips.isEmpty()) {
      delta.set(OffsetLedger.skippedKey(sinkId), OffsetLedger.encodePoints(skips));
    }
    if (c.truncateLsn() != null) {
      delta.set(OffsetLedger.truncateKey(sinkId), String.valueOf(c.truncateLsn()));
    }
    if (c.movesFile() != null) {
      delta.set(OffsetLedger.movesKey(sinkId), c.movesFile());
    }
    delta.set(SINK_PROPERTY, sinkId);
    delta.commit();
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }
}
