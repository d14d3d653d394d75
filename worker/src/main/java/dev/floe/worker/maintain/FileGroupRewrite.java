package dev.floe.worker.maintain;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites one file group with its deletes applied and commits it as one snapshot, validated from
 * the snapshot the rewrite read: the new files take that snapshot's data sequence number, so
 * equality deletes committed since still apply to them, and Iceberg refuses the commit when
 * position deletes or deletion vectors landed on a replaced file meanwhile (its rows would come
 * back). A refused commit is a lost race: the new files are deleted, nothing else changes.
 */
final class FileGroupRewrite {
  private static final Logger LOG = LoggerFactory.getLogger(FileGroupRewrite.class);

  /** What one group's rewrite did; {@code committed} is false when it lost a race. */
  record Outcome(boolean committed, int filesRemoved, int filesWritten, long rowsWritten, long bytesRemoved, long bytesWritten) {}

  private FileGroupRewrite() {}

  /**
   * @param marker the value of {@link Compactor#COMPACTION_PROPERTY} in the snapshot's summary
   * @param beforeCommit called between the rewrite and its commit (tests commit a delete there)
   */
  static Outcome run(Table table, Snapshot start, FileGroupPlanner.FileGroup group, long targetFileSize, String marker,
      Consumer<FileGroupPlanner.FileGroup> beforeCommit) {
    DataFileRewriter.Rewritten written = DataFileRewriter.rewrite(table, group.tasks(), targetFileSize);
    Set<DataFile> removed = new HashSet<>();
    group.tasks().forEach(t -> removed.add(t.file()));
    long bytesRemoved = removed.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    long bytesWritten = written.files().stream().mapToLong(DataFile::fileSizeInBytes).sum();
    try {
      beforeCommit.accept(group);
      RewriteFiles rewrite = table.newRewrite()
          .validateFromSnapshot(start.snapshotId())
          // the new files take the sequence number the rewrite read at: deletes committed since still apply
          .dataSequenceNumber(start.sequenceNumber())
          .rewriteFiles(removed, Set.of(), new HashSet<>(written.files()), Set.of());
      rewrite.set(Compactor.COMPACTION_PROPERTY, marker);
      rewrite.commit();
      return new Outcome(true, removed.size(), written.files().size(), written.rows(), bytesRemoved, bytesWritten);
    } catch (ValidationException | CommitFailedException e) {
      LOG.info("file group of {} file(s) lost a race: {}", removed.size(), e.getMessage());
      written.files().forEach(f -> table.io().deleteFile(f.location()));
      return new Outcome(false, 0, 0, 0, 0, bytesWritten);
    }
  }
}
