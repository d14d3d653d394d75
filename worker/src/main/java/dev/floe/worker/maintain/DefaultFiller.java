package dev.floe.worker.maintain;

import dev.floe.worker.apply.AddedDefaults;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finishes the pending fills of {@link AddedDefaults} (format v2 has no initial defaults): the data
 * files written before a column the source added with a default are rewritten with the default in
 * every live row, committed like a compaction (the new files keep the data sequence number of the
 * snapshot the fill read, so deletes committed meanwhile still apply), and the pending marker is
 * removed in the same commit. A fill that loses a race to a writer's deletes is planned again.
 */
public final class DefaultFiller {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultFiller.class);
  private static final int MAX_ATTEMPTS = 10;

  private DefaultFiller() {}

  /**
   * Fills what is pending; returns true when it committed anything (the table then has a new state).
   * The caller hands a freshly refreshed table (a worker calls this on every batch, so the first
   * look costs no catalog round trip); after a fill or a lost race the table is read again.
   */
  public static boolean finishPending(Table table) {
    boolean committed = false;
    for (int attempt = 1; ; attempt++) {
      if (attempt > 1 || committed) {
        table.refresh();
      }
      Map<Integer, Long> pending = AddedDefaults.pendingFills(table.properties());
      if (pending.isEmpty()) {
        return committed;
      }
      try {
        fill(table, pending);
        committed = true;
        attempt = 0;
      } catch (ValidationException | CommitFailedException e) {
        if (attempt >= MAX_ATTEMPTS) {
          throw e;
        }
        LOG.info("filling defaults of {} lost a race (attempt {}): {}; planning again", table.name(), attempt, e.getMessage());
      }
    }
  }

  private static void fill(Table table, Map<Integer, Long> pending) {
    long t0 = System.nanoTime();
    Map<Integer, AddedDefaults.Added> defaults = AddedDefaults.read(table.properties(), table.schema());
    Snapshot start = table.currentSnapshot();
    // Files that need the same columns filled are rewritten together.
    Map<Map<Integer, Object>, List<FileScanTask>> byFill = new LinkedHashMap<>();
    if (start != null) {
      try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(start.snapshotId()).planFiles()) {
        for (FileScanTask task : tasks) {
          Map<Integer, Object> fill = new TreeMap<>();
          pending.forEach((id, below) -> {
            AddedDefaults.Added d = defaults.get(id);
            if (d != null && task.file().dataSequenceNumber() <= below) {
              fill.put(id, d.value());
            }
          });
          if (!fill.isEmpty()) {
            byFill.computeIfAbsent(fill, f -> new ArrayList<>()).add(task);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    long target = PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    Set<DataFile> removed = new HashSet<>();
    Set<DataFile> added = new HashSet<>();
    long rows = 0;
    Transaction txn = table.newTransaction();
    try {
      for (Map.Entry<Map<Integer, Object>, List<FileScanTask>> group : byFill.entrySet()) {
        DataFileRewriter.Rewritten written = DataFileRewriter.rewrite(table, group.getValue(), target, group.getKey());
        added.addAll(written.files());
        group.getValue().forEach(t -> removed.add(t.file()));
        rows += written.rows();
      }
      if (!removed.isEmpty()) {
        RewriteFiles rewrite = txn.newRewrite()
            .validateFromSnapshot(start.snapshotId())
            // the new files take the sequence number the fill read at: deletes committed since still apply
            .dataSequenceNumber(start.sequenceNumber())
            .rewriteFiles(removed, Set.of(), added, Set.of());
        rewrite.set(Compactor.COMPACTION_PROPERTY, "fill-defaults");
        rewrite.commit();
      }
      UpdateProperties done = txn.updateProperties();
      pending.keySet().forEach(id -> done.remove(AddedDefaults.fillKey(id)));
      done.commit();
      txn.commitTransaction();
    } catch (CommitStateUnknownException e) {
      throw e; // the commit may have landed: its files must stay
    } catch (RuntimeException e) {
      added.forEach(f -> table.io().deleteFile(f.location()));
      throw e;
    }
    table.refresh();
    LOG.info("filled the defaults of field(s) {} into {} row(s) of {}: {} file(s) rewritten into {} in {} ms", pending.keySet(), rows,
        table.name(), removed.size(), added.size(), (System.nanoTime() - t0) / 1_000_000);
  }
}
