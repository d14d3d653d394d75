package dev.floe.worker.runtime;

import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.SelfCompactionSpec;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.maintain.SelfCompactionPlanner.Trigger;
import dev.floe.worker.maintain.SelfCompactor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's side of self-compaction: told of each table commit and of each turn of the poll
 * loop, it compacts a table this worker wrote once no record has arrived for {@code idleAfter}
 * (and so before the operator scales the sink to zero, which waits longer), and, while busy, checks
 * every {@code idleAfter} for files past the dead-row fraction. It counts the bytes the sink's
 * batches committed and the bytes compaction wrote, their ratio being the write amplification. A
 * failed compaction is logged and left for the next turn: it never stops ingest.
 */
final class SelfCompaction {
  private static final Logger LOG = LoggerFactory.getLogger(SelfCompaction.class);
  /**
   * Longest stretch of compaction between two polls: the consumer must poll within
   * max.poll.interval.ms (5 min) to stay in its group, and records arriving meanwhile wait. What
   * is left is done in the next stretch, after a poll, while the worker stays idle.
   */
  private static final long SLICE_NANOS = java.time.Duration.ofSeconds(60).toNanos();

  private final CompactionSpec spec;
  private final SelfCompactionSpec self;
  private final long idleAfterNanos;
  private final WorkerMetrics metrics;
  private final Map<SinkEngine, Written> tables = new LinkedHashMap<>();
  private long lastRecordNanos;

  /** What this worker committed to one table since its last compaction, and when it last checked. */
  private static final class Written {
    final List<Long> uncounted = new ArrayList<>();
    boolean sinceIdleCompaction;
    int commitsSinceCheck;
    long lastCheckNanos;
  }

  SelfCompaction(CompactionSpec spec, WorkerMetrics metrics, long now) {
    this.spec = spec;
    this.self = spec.selfCompaction();
    this.idleAfterNanos = self.enabled() ? self.idleAfterDuration().toNanos() : Long.MAX_VALUE;
    this.metrics = metrics;
    this.lastRecordNanos = now;
  }

  /** The engine committed this snapshot of its table (a batch of this worker). */
  void committed(SinkEngine engine, long snapshotId, long now) {
    Written w = tables.computeIfAbsent(engine, e -> {
      Written fresh = new Written();
      fresh.lastCheckNanos = now;
      return fresh;
    });
    w.uncounted.add(snapshotId);
    w.sinceIdleCompaction = true;
    w.commitsSinceCheck++;
  }

  /**
   * One turn of the poll loop: compacts what is due, in this thread (the engine's table is not
   * shared across threads), stopping between file groups once {@code keepGoing} is false.
   *
   * @param polledAny records arrived this turn
   * @param batchEmpty no batch is open (a compaction now delays no record already polled)
   */
  void tick(long now, boolean polledAny, boolean batchEmpty, BooleanSupplier keepGoing) {
    if (polledAny) {
      lastRecordNanos = now;
    }
    if (!batchEmpty) {
      return;
    }
    for (Map.Entry<SinkEngine, Written> e : tables.entrySet()) {
      Written w = e.getValue();
      Trigger due = due(self.enabled(), now - lastRecordNanos, idleAfterNanos, w.sinceIdleCompaction, w.commitsSinceCheck,
          now - w.lastCheckNanos);
      if (due != null && keepGoing.getAsBoolean()) {
        long deadline = System.nanoTime() + SLICE_NANOS;
        boolean[] cut = {false};
        compact(e.getKey(), w, due, () -> {
          cut[0] |= System.nanoTime() > deadline;
          return keepGoing.getAsBoolean() && !cut[0];
        });
        w.lastCheckNanos = System.nanoTime();
        w.commitsSinceCheck = 0;
        if (due == Trigger.IDLE && !cut[0]) {
          w.sinceIdleCompaction = false; // done for this quiet spell; a slice cut short goes on next turn
        }
      }
    }
  }

  /**
   * What is due for one table, or null: idle compaction once per quiet spell after this worker
   * wrote to the table, otherwise a dead-fraction check every {@code idleAfter} while it writes.
   */
  static Trigger due(boolean enabled, long quietNanos, long idleAfterNanos, boolean wroteSinceIdleCompaction, int commitsSinceCheck,
      long sinceCheckNanos) {
    if (!enabled) {
      return null;
    }
    if (wroteSinceIdleCompaction && quietNanos >= idleAfterNanos) {
      return Trigger.IDLE;
    }
    if (commitsSinceCheck > 0 && sinceCheckNanos >= idleAfterNanos) {
      return Trigger.DEAD_FRACTION;
    }
    return null;
  }

  private void compact(SinkEngine engine, Written w, Trigger trigger, BooleanSupplier keepGoing) {
    String name = engine.tableId().toString();
    try {
      Table table = engine.table();
      countIngested(name, table, w);
      SelfCompactor.Report r = new SelfCompactor(table, spec).run(trigger, keepGoing);
      metrics.selfCompacted(name, r);
      if (r.groups() > 0 || r.lostRaces() > 0) {
        LOG.info("self-compaction of {} ({}): {} group(s) of {} file(s), {} bytes, rewritten into {} file(s), {} bytes, {} rows;"
                + " {} delete file(s) dropped; {} group(s) lost a race and are left for later; {} s",
            name, trigger, r.groups(), r.filesRewritten(), r.bytesRewritten(), r.filesWritten(), r.bytesWritten(), r.rows(),
            r.deleteFilesRemoved(), r.lostRaces(), String.format(java.util.Locale.ROOT, "%.1f", r.seconds()));
      }
    } catch (RuntimeException e) {
      LOG.warn("self-compaction of {} ({}) failed, left for the next turn: {}", name, trigger, e.toString());
    }
  }

  /** Adds the bytes of this worker's commits since the last count to the table's ingest counter. */
  private void countIngested(String name, Table table, Written w) {
    long bytes = 0;
    for (Long id : w.uncounted) {
      Snapshot s = table.snapshot(id);
      String added = s == null ? null : s.summary().get("added-files-size");
      bytes += added == null ? 0 : Long.parseLong(added);
    }
    w.uncounted.clear();
    metrics.bytesCommitted(name, bytes);
  }
}
