package dev.floe.worker.runtime;

import dev.floe.worker.engine.BatchResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;

/** The worker's Prometheus metrics: what it consumed, wrote, rejected, how long commits took, how far behind it is. */
public final class WorkerMetrics {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Counter commitFailures;
  private final Counter kafkaFailures;
  private final Counter catalogFailures;
  private final AtomicLong kafkaConnected = new AtomicLong();
  private final Map<String, TableMeters> tables = new ConcurrentHashMap<>();
  private final Map<TopicPartition, Lag> lag = new ConcurrentHashMap<>();
  private final Tags tags;

  public WorkerMetrics(String sink) {
    tags = Tags.of("sink", sink);
    // the JVM's heap, what sizing a worker pod needs
    new io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics().bindTo(registry);
    commitFailures = Counter.builder("floe.commit.failures").tags(tags)
        .description("batch commits that failed and were retried with backoff (catalog, storage or Kafka outages)").register(registry);
    catalogFailures = Counter.builder("floe.catalog.failures").tags(tags)
        .description("attempts to reach the catalog at startup that failed and were retried (no table metrics exist until one succeeds)")
        .register(registry);
    kafkaFailures = Counter.builder("floe.kafka.failures").tags(tags)
        .description("calls to Kafka that failed (broker unreachable, timed out) and were retried").register(registry);
    Gauge.builder("floe.kafka.connected", kafkaConnected, AtomicLong::get).tags(tags)
        .description("1 while the worker reaches Kafka, 0 from a failed call until the next good one").register(registry);
  }

  /** A startup attempt to reach the catalog failed: counted, so an alert fires for a worker that never got to its tables. */
  public void catalogFailed() {
    catalogFailures.increment();
  }

  public void kafkaFailed() {
    kafkaFailures.increment();
  }

  /** Calls to Kafka that failed so far. */
  public long kafkaFailures() {
    return (long) kafkaFailures.count();
  }

  public void kafkaConnected(boolean connected) {
    kafkaConnected.set(connected ? 1 : 0);
  }

  /** What one table's batches did; a sink routed to many tables has one set per table. */
  private final class TableMeters {
    final Counter consumed;
    final Counter rowsWritten;
    final Counter keysDeleted;
    final Counter rejected;
    final Counter alreadyApplied;
    final DistributionSummary batchRecords;
    final Timer commitLatency;
    final AtomicLong lastCommitEpochSeconds = new AtomicLong();
    final AtomicLong stopped = new AtomicLong();
    final Tags tableTags;
    /** The info gauge naming the last snapshot; replaced on each commit. */
    Gauge lastSnapshot;
    long lastSnapshotId;

    TableMeters(String table) {
      Tags t = tags.and("table", table);
      tableTags = t;
      consumed = Counter.builder("floe.records.consumed").tags(t).description("Kafka records consumed").register(registry);
      rowsWritten = Counter.builder("floe.rows.upserted").tags(t).description("rows written (inserted or updated)").register(registry);
      keysDeleted = Counter.builder("floe.rows.deleted").tags(t).description("keys deleted").register(registry);
      rejected = Counter.builder("floe.records.rejected").tags(t).description("records sent to the dead-letter topic").register(registry);
      alreadyApplied = Counter.builder("floe.records.already.applied").tags(t).description("redelivered records the table already held").register(registry);
      batchRecords = DistributionSummary.builder("floe.batch.records").tags(t).description("records per committed batch").register(registry);
      commitLatency = Timer.builder("floe.commit.latency").tags(t).description("time to apply and commit a batch").register(registry);
      Gauge.builder("floe.last.commit.time", lastCommitEpochSeconds, AtomicLong::get).tags(t).baseUnit("seconds")
          .description("when the sink last committed to the table (epoch seconds; 0 if never): its freshness").register(registry);
      Gauge.builder("floe.table.stopped", stopped, AtomicLong::get).tags(t)
          .description("1: the table stopped (a schema change it cannot follow, or a permanent failure); its partitions are paused")
          .register(registry);
    }

    /**
     * Snapshot ids are 64-bit and Prometheus samples are doubles (exact only to 2^53), so the id
     * is a label of an info gauge (value 1), the one series replaced on each commit: readable and
     * exact, at the cost of one new series per commit for Prometheus to index.
     */
    synchronized void snapshot(long snapshotId) {
      if (lastSnapshot != null && lastSnapshotId == snapshotId) {
        return;
      }
      if (lastSnapshot != null) {
        registry.remove(lastSnapshot);
      }
      lastSnapshotId = snapshotId;
      lastSnapshot = Gauge.builder("floe.last.snapshot.info", () -> 1).tags(tableTags).tag("snapshot_id", Long.toString(snapshotId))
          .description("the snapshot the sink last committed to the table, exactly, as the label snapshot_id").register(registry);
    }
  }

  /**
   * The table is known (at assignment, before any batch): its meters exist from now on, so an
   * alert on freshness can fire for a worker that is stuck from the start. The last commit is
   * the table's (its newest snapshot carrying this sink's offsets), if it has one.
   */
  public void tableResolved(String table, Long lastSnapshotId, Long lastCommitEpochMillis) {
    TableMeters m = tables.computeIfAbsent(table, TableMeters::new);
    if (lastSnapshotId != null && m.lastCommitEpochSeconds.get() == 0) {
      m.snapshot(lastSnapshotId);
      m.lastCommitEpochSeconds.set(lastCommitEpochMillis / 1000);
    }
  }

  public void batchCommitted(String table, BatchResult r, Duration took) {
    TableMeters m = tables.computeIfAbsent(table, TableMeters::new);
    m.consumed.increment(r.records());
    m.rowsWritten.increment(r.rowsWritten());
    m.keysDeleted.increment(r.keysDeleted());
    m.rejected.increment(r.rejected().size());
    m.alreadyApplied.increment(r.alreadyApplied());
    m.batchRecords.record(r.records());
    m.commitLatency.record(took);
    if (r.snapshotId() != null) {
      m.snapshot(r.snapshotId());
      m.lastCommitEpochSeconds.set(System.currentTimeMillis() / 1000);
    }
  }

  /** What one table's self-compaction did, beside the bytes its batches committed: their ratio is the write amplification. */
  private final class CompactionMeters {
    final Counter bytesCommitted;
    final Counter rewrittenBytes;
    final Counter groups;
    final Counter lostRaces;
    final Counter idleRuns;
    final Counter deadFractionRuns;

    CompactionMeters(String table) {
      Tags t = tags.and("table", table);
      idleRuns = Counter.builder("floe.self.compaction.runs").tags(t).tag("trigger", "idle")
          .description("self-compactions run, by trigger (idle: after idleAfter without records; dead_fraction: while busy)")
          .register(registry);
      deadFractionRuns = Counter.builder("floe.self.compaction.runs").tags(t).tag("trigger", "dead_fraction")
          .description("self-compactions run, by trigger (idle: after idleAfter without records; dead_fraction: while busy)")
          .register(registry);
      bytesCommitted = Counter.builder("floe.committed.bytes").tags(t).baseUnit("bytes")
          .description("bytes of data and delete files this worker's batches committed (counted at each self-compaction check)")
          .register(registry);
      rewrittenBytes = Counter.builder("floe.self.compaction.rewritten.bytes").tags(t).baseUnit("bytes")
          .description("bytes of data files this worker's self-compaction wrote, lost races included: ÷ committed bytes is the write amplification")
          .register(registry);
      groups = Counter.builder("floe.self.compaction.groups").tags(t).description("file groups self-compaction rewrote and committed")
          .register(registry);
      lostRaces = Counter.builder("floe.self.compaction.lost.races").tags(t)
          .description("file groups self-compaction gave up because another commit touched their files first (no data lost)")
          .register(registry);
    }
  }

  private final Map<String, CompactionMeters> compaction = new ConcurrentHashMap<>();

  /** Bytes of files this worker's batches committed to a table. */
  public void bytesCommitted(String table, long bytes) {
    compaction.computeIfAbsent(table, CompactionMeters::new).bytesCommitted.increment(bytes);
  }

  /** A self-compaction of a table ran. */
  public void selfCompacted(String table, dev.floe.worker.maintain.SelfCompactor.Report r) {
    CompactionMeters m = compaction.computeIfAbsent(table, CompactionMeters::new);
    m.rewrittenBytes.increment(r.bytesWritten());
    m.groups.increment(r.groups());
    m.lostRaces.increment(r.lostRaces());
    (r.trigger() == dev.floe.worker.maintain.SelfCompactionPlanner.Trigger.IDLE ? m.idleRuns : m.deadFractionRuns).increment();
  }

  /** Batches committed so far, over all tables. */
  public long committedBatches() {
    return tables.values().stream().mapToLong(m -> m.batchRecords.count()).sum();
  }

  public void commitFailed() {
    commitFailures.increment();
  }

  /** Batch commits that failed so far (each retried with backoff). */
  public long commitFailures() {
    return (long) commitFailures.count();
  }

  /** A table stopped (1 until the worker restarts). */
  public void tableStopped(String table) {
    tables.computeIfAbsent(table, TableMeters::new).stopped.set(1);
  }

  public void lag(TopicPartition tp, long value) {
    lag.computeIfAbsent(tp, p -> {
      AtomicLong v = new AtomicLong();
      return new Lag(v, Gauge.builder("floe.lag", v, AtomicLong::get)
          .tags(tags).tags("topic", p.topic(), "partition", String.valueOf(p.partition()))
          .description("records behind the end of the partition").register(registry));
    }).value().set(value);
  }

  /** Stops reporting lag for partitions this worker no longer owns (their next owner reports it). */
  public void forget(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      Lag gone = lag.remove(tp);
      if (gone != null) {
        registry.remove(gone.gauge());
      }
    }
  }

  /** One partition's lag and the gauge that reports it. */
  private record Lag(AtomicLong value, Gauge gauge) {}

  public String scrape() {
    return registry.scrape();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }
}
