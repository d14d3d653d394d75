package dev.floe.worker.engine;

import dev.floe.worker.apply.PersistedIndex;
import dev.floe.worker.apply.PrimaryKeyIndex;
import dev.floe.worker.apply.TableLayout;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When an engine's primary-key index is persisted ({@link PersistedIndex}): a copy every
 * {@link #EVERY} commits, encoded on the applying thread (the index changes with the next batch)
 * and written beside the next batches, then attached to its snapshot by the applying thread; and a
 * copy at once, waited for, where a worker must leave one behind. A copy that fails is logged and
 * the next one is due at the next commit: a restart without one rebuilds or catches up, never trusts.
 */
final class IndexCopies {
  private static final Logger LOG = LoggerFactory.getLogger(IndexCopies.class);
  /** Commits between persisted copies. */
  static final int EVERY = 20;
  /**
   * Writes copies for every engine (at 10M keys, half a gigabyte: seconds the applying thread spent
   * writing); a daemon thread of its own, which writes one copy at a time.
   */
  private static final ExecutorService WRITER = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "floe-index-writer");
    t.setDaemon(true);
    return t;
  });

  private final TableIdentifier tableId;
  private int changesSinceCopy;
  /** A copy being written, to attach once written. */
  private Future<StatisticsFile> writing;

  IndexCopies(TableIdentifier tableId) {
    this.tableId = tableId;
  }

  /** A commit of this engine changed the index: attaches a copy written meanwhile, and starts the next when one is due. */
  void committed(Table table, PrimaryKeyIndex index, TableLayout layout) {
    attachWritten(table, false);
    if (++changesSinceCopy >= EVERY) {
      writeAhead(table, index, layout);
    }
  }

  /** The index changed other than by this engine's commits (caught up over another writer's). */
  void changedElsewhere() {
    changesSinceCopy++;
  }

  /** Whether the index changed since the last copy was taken. */
  boolean changedSinceCopy() {
    return changesSinceCopy > 0;
  }

  /** Persists the index now and waits for it (after attaching any copy still being written). */
  void persistNow(Table table, PrimaryKeyIndex index, TableLayout layout) {
    attachWritten(table, true);
    if (index == null || !PersistedIndex.supports(layout)) {
      return;
    }
    try {
      PersistedIndex.save(table, index, layout);
      changesSinceCopy = 0;
    } catch (RuntimeException e) {
      LOG.warn("could not persist the primary-key index of {} (a restart rebuilds it): {}", tableId, e.toString());
    }
  }

  /** Attaches a copy still being written, waiting for it: before a worker goes away. */
  void finishWriting(Table table) {
    attachWritten(table, true);
  }

  private void writeAhead(Table table, PrimaryKeyIndex index, TableLayout layout) {
    attachWritten(table, true); // one copy in flight at a time
    if (index == null || !PersistedIndex.supports(layout)) {
      return;
    }
    PersistedIndex.Encoded encoded;
    try {
      encoded = PersistedIndex.encoded(table, index, layout);
    } catch (RuntimeException e) {
      LOG.warn("could not persist the primary-key index of {} (a restart rebuilds it): {}", tableId, e.toString());
      return;
    }
    FileIO io = table.io();
    writing = WRITER.submit(() -> encoded.write(io));
    changesSinceCopy = 0;
  }

  /** Attaches the copy being written once it is written (or, with {@code wait}, after waiting for it). */
  private void attachWritten(Table table, boolean wait) {
    if (writing == null || (!wait && !writing.isDone())) {
      return;
    }
    Future<StatisticsFile> written = writing;
    writing = null;
    try {
      PersistedIndex.attach(table, written.get());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      changesSinceCopy = Math.max(changesSinceCopy, EVERY - 1);
    } catch (ExecutionException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      LOG.warn("could not persist the primary-key index of {} (a restart rebuilds it): {}", tableId, cause.toString());
      changesSinceCopy = Math.max(changesSinceCopy, EVERY - 1);
    }
  }
}
