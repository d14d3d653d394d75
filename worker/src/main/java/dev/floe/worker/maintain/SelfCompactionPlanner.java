package dev.floe.worker.maintain;

import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;

/**
 * What the worker rewrites of its table, a pure function of the scan tasks. Idle, it rewrites
 * every file that deletes apply to and bin-packs small files (as {@code floe compact} would, without
 * the expiry and orphan steps); busy, only the files whose dead rows pass the fraction, so that
 * ingest pays for a rewrite only where readers pay more.
 */
public final class SelfCompactionPlanner {
  private SelfCompactionPlanner() {}

  /** Why the worker compacts. */
  public enum Trigger {
    /** No record arrived for a while: make the table as close to fresh as a rewrite can. */
    IDLE,
    /** Between batches: rewrite the files past the dead-row fraction, nothing else. */
    DEAD_FRACTION
  }

  public static List<FileGroupPlanner.FileGroup> plan(Iterable<FileScanTask> tasks, Trigger trigger, int currentSpecId,
      long targetFileSize, int minInputFiles, double maxDeadFraction) {
    if (trigger == Trigger.IDLE) {
      return FileGroupPlanner.plan(tasks, currentSpecId, targetFileSize, minInputFiles);
    }
    List<FileScanTask> dead = new java.util.ArrayList<>();
    for (FileScanTask t : tasks) {
      if (deadFraction(t) > maxDeadFraction) {
        dead.add(t);
      }
    }
    return FileGroupPlanner.plan(dead, currentSpecId, targetFileSize, 1);
  }

  /**
   * The fraction of a data file's rows its deletes remove. Exact for deletion vectors and for
   * position delete files of one data file (what Floe writes); for equality deletes and position
   * deletes spanning files it counts every row of the delete file, an upper bound: such a file is
   * rewritten early rather than late.
   */
  public static double deadFraction(FileScanTask task) {
    long rows = task.file().recordCount();
    if (rows <= 0) {
      return task.deletes().isEmpty() ? 0 : 1;
    }
    long dead = 0;
    for (DeleteFile d : task.deletes()) {
      dead += d.recordCount();
    }
    return Math.min(1.0, (double) dead / rows);
  }
}
