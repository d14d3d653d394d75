package dev.floe.worker.maintain;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Finds delete files that apply to no live data file any more (every file they applied to was
 * rewritten with them applied). Iceberg's own scan planning decides what applies, so removing them
 * changes no read; it only keeps manifests small.
 */
final class DanglingDeletes {
  private DanglingDeletes() {}

  /**
   * Drops the dangling delete files in one snapshot marked {@code marker}; returns how many. A
   * delete that dangles stays dangling whatever commits meanwhile (new data files are newer than
   * it, and position deletes name their files), so Iceberg's own retry onto a newer state is safe.
   */
  static int remove(Table table, String marker) {
    List<DeleteFile> dangling = find(table);
    if (dangling.isEmpty()) {
      return 0;
    }
    RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(table.currentSnapshot().snapshotId());
    dangling.forEach(rewrite::deleteFile);
    rewrite.set(Compactor.COMPACTION_PROPERTY, marker);
    rewrite.commit();
    return dangling.size();
  }

  static List<DeleteFile> find(Table table) {
    if (table.currentSnapshot() == null) {
      return List.of();
    }
    Set<String> applied = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        t.deletes().forEach(d -> applied.add(d.location()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return AllDeleteFiles.of(table).stream().filter(d -> !applied.contains(d.location())).toList();
  }
}
