package dev.floe.worker.maintain;

import dev.floe.worker.config.CompactionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's own compaction of its table: rewrites the file groups {@link SelfCompactionPlanner}
 * picks, each in its own snapshot by {@link FileGroupRewrite} (so it runs beside other workers,
 * other sinks and {@code floe compact} Jobs: a group that loses a race is planned once more from
 * the new state, then left), and drops the delete files nothing applies to any more. Its snapshots
 * carry no offsets: the sink's offsets stay in the newest snapshot that has them, where
 * {@code OffsetLedger.read} finds them by walking back, and a worker's commit based on an older
 * snapshot is not refused for them (only snapshots of the same sink are).
 */
public final class SelfCompactor {
  private static final Logger LOG = LoggerFactory.getLogger(SelfCompactor.class);
  /** The summary value of {@link Compactor#COMPACTION_PROPERTY} on this class's rewrite snapshots. */
  public static final String MARKER = "self-rewrite";

  private final Table table;
  private final CompactionSpec spec;
  private Consumer<FileGroupPlanner.FileGroup> beforeGroupCommit = g -> {};

  /** What one self-compaction did: groups committed and lost, files and bytes read and written. */
  public record Report(SelfCompactionPlanner.Trigger trigger, int groups, int lostRaces, int filesRewritten, int filesWritten,
      long bytesRewritten, long bytesWritten, long rows, int deleteFilesRemoved, double seconds) {
    Report plus(FileGroupRewrite.Outcome o) {
      return new Report(trigger, groups + (o.committed() ? 1 : 0), lostRaces + (o.committed() ? 0 : 1), filesRewritten + o.filesRemoved(),
          filesWritten + o.filesWritten(), bytesRewritten + o.bytesRemoved(), bytesWritten + o.bytesWritten(), rows + o.rowsWritten(),
          deleteFilesRemoved, seconds);
    }
  }

  public SelfCompactor(Table table, CompactionSpec spec) {
    this.table = table;
    this.spec = spec;
  }

  /** A hook between a group's rewrite and its commit (tests commit another writer's batch there). */
  public SelfCompactor beforeGroupCommit(Consumer<FileGroupPlanner.FileGroup> hook) {
    this.beforeGroupCommit = hook;
    return this;
  }

  /**
   * Compacts for this trigger; stops between groups once {@code keepGoing} says so (the worker is
   * stopping, or records are waiting).
   */
  public Report run(SelfCompactionPlanner.Trigger trigger, BooleanSupplier keepGoing) {
    long t0 = System.nanoTime();
    table.refresh();
    Report report = new Report(trigger, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    if (table.currentSnapshot() == null) {
      return report;
    }
    for (int round = 0; round < 2 && keepGoing.getAsBoolean(); round++) {
      int lostBefore = report.lostRaces();
      report = rewriteGroups(trigger, report, keepGoing);
      if (report.lostRaces() == lostBefore) {
        break; // nothing lost: no second round (the groups lost once are planned again from the new state)
      }
    }
    int removed = 0;
    if (report.groups() > 0) {
      try {
        removed = DanglingDeletes.remove(table, MARKER);
      } catch (RuntimeException e) {
        // harmless: a dangling delete applies to no file; the next run or floe compact drops it
        LOG.info("dropping dangling delete files of {} lost a race, left for later: {}", table.name(), e.toString());
      }
    }
    table.refresh();
    return new Report(trigger, report.groups(), report.lostRaces(), report.filesRewritten(), report.filesWritten(),
        report.bytesRewritten(), report.bytesWritten(), report.rows(), removed, (System.nanoTime() - t0) / 1e9);
  }

  private Report rewriteGroups(SelfCompactionPlanner.Trigger trigger, Report report, BooleanSupplier keepGoing) {
    table.refresh();
    Snapshot start = table.currentSnapshot();
    List<FileGroupPlanner.FileGroup> plan;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(start.snapshotId()).planFiles()) {
      plan = SelfCompactionPlanner.plan(tasks, trigger, table.spec().specId(), spec.targetFileSize(), spec.minInputFiles(),
          spec.selfCompaction().maxDeadFraction());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (FileGroupPlanner.FileGroup group : plan) {
      if (!keepGoing.getAsBoolean()) {
        break;
      }
      report = report.plus(FileGroupRewrite.run(table, start, group, spec.targetFileSize(), MARKER, beforeGroupCommit));
    }
    return report;
  }
}
