package dev.floe.worker.maintain;

import dev.floe.worker.config.CompactionSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code floe compact}: rewrites small files and files with deletes, drops deletes that no longer
 * apply, expires snapshots, removes orphan files and rewrites manifests, while workers keep
 * committing. Each file group commits on its own with the data sequence number of the snapshot the
 * rewrite read, so deletes committed meanwhile still apply to the new files; a group that loses a
 * race is given up (the next run retries it), never half-applied.
 */
public final class Compactor {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);
  public static final String COMPACTION_PROPERTY = "floe.compaction";

  private final Table table;
  private final String sinkId;
  private final CompactionSpec spec;
  private Consumer<FileGroupPlanner.FileGroup> beforeGroupCommit = g -> {};

  public Compactor(Table table, String sinkId, CompactionSpec spec) {
    this.table = table;
    this.sinkId = sinkId;
    this.spec = spec;
  }

  /** A hook between a group's rewrite and its commit (tests use it to commit a delete in between). */
  public Compactor beforeGroupCommit(Consumer<FileGroupPlanner.FileGroup> hook) {
    this.beforeGroupCommit = hook;
    return this;
  }

  public CompactionReport run() {
    long t0 = System.nanoTime();
    table.refresh();
    CompactionReport.TableStats before = stats();
    List<String> errors = new ArrayList<>();
    int[] groups = {0, 0, 0, 0};
    long[] rows = {0};
    int deletesRemoved = 0;
    int expired = 0;
    int orphans = 0;
    int manifests = 0;
    if (spec.rewrite() && table.currentSnapshot() != null) {
      int lost = rewriteGroups(groups, rows, errors);
      if (lost > 0) {
        // Groups that lost a race are planned again from the new table state, once.
        groups[1] -= lost;
        if (rewriteGroups(groups, rows, errors) > 0) {
          errors.add(groups[1] + " file group(s) lost a race twice and are left for the next run");
        }
      }
      deletesRemoved = removeDanglingDeletes(errors);
    }
    if (spec.rewriteManifests() && table.currentSnapshot() != null) {
      manifests = rewriteManifests(errors);
    }
    if (spec.expire()) {
      expired = step("expire snapshots", errors, () ->
          SnapshotExpirer.expire(table, sinkId, spec.expireAfterDuration(), spec.retainLast(), System.currentTimeMillis()));
    }
    if (spec.removeOrphans()) {
      orphans = step("remove orphan files", errors, () ->
          OrphanFiles.remove(table, System.currentTimeMillis() - spec.orphanAfterDuration().toMillis()));
      if (orphans < 0) {
        errors.add("remove orphan files: the table's FileIO cannot list files; skipped");
        orphans = 0;
      }
    }
    table.refresh();
    return new CompactionReport(table.name(), (System.nanoTime() - t0) / 1e9, before, stats(), groups[0], groups[1], groups[2],
        groups[3], rows[0], deletesRemoved, expired, orphans, manifests, errors);
  }

  /** @return how many groups lost a race */
  private int rewriteGroups(int[] groups, long[] rows, List<String> errors) {
    int lost = 0;
    Snapshot start = table.currentSnapshot();
    List<FileGroupPlanner.FileGroup> plan;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(start.snapshotId()).planFiles()) {
      plan = FileGroupPlanner.plan(tasks, table.spec().specId(), spec.targetFileSize(), spec.minInputFiles());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (FileGroupPlanner.FileGroup group : plan) {
      FileGroupRewrite.Outcome outcome = FileGroupRewrite.run(table, start, group, spec.targetFileSize(), "rewrite", beforeGroupCommit);
      if (outcome.committed()) {
        groups[0]++;
        groups[2] += outcome.filesRemoved();
        groups[3] += outcome.filesWritten();
        rows[0] += outcome.rowsWritten();
      } else {
        groups[1]++;
        lost++;
      }
    }
    table.refresh();
    return lost;
  }

  private int removeDanglingDeletes(List<String> errors) {
    return step("remove dangling deletes", errors, () -> DanglingDeletes.remove(table, "dangling-deletes"));
  }

  private int rewriteManifests(List<String> errors) {
    return step("rewrite manifests", errors, () -> {
      List<ManifestFile> manifests = table.currentSnapshot().allManifests(table.io());
      if (manifests.size() <= spec.maxManifests()) {
        return 0;
      }
      table.rewriteManifests().clusterBy(f -> f.specId()).set(COMPACTION_PROPERTY, "manifests").commit();
      return manifests.size();
    });
  }

  private CompactionReport.TableStats stats() {
    Snapshot s = table.currentSnapshot();
    int snapshots = 0;
    for (Snapshot ignored : table.snapshots()) {
      snapshots++;
    }
    if (s == null) {
      return new CompactionReport.TableStats(0, 0, 0, snapshots);
    }
    Map<String, String> summary = s.summary();
    return new CompactionReport.TableStats(number(summary, "total-data-files"), number(summary, "total-delete-files"),
        number(summary, "total-files-size"), snapshots);
  }

  private static long number(Map<String, String> summary, String key) {
    return Long.parseLong(Objects.requireNonNullElse(summary.get(key), "0"));
  }

  private interface Step {
    int run();
  }

  private static int step(String name, List<String> errors, Step step) {
    try {
      return step.run();
    } catch (RuntimeException e) {
      LOG.warn("{} failed: {}", name, e.toString());
      errors.add(name + ": " + e.getMessage());
      return 0;
    }
  }
}
