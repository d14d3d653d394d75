package dev.floe.worker.runtime;

import dev.floe.worker.apply.IncompatibleSchemaException;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.SinkEngine;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.TopicPartition;

/**
 * Applies closed batches on a thread of its own, one at a time, while the polling thread fills the
 * next one: decoding, writing and committing batch N overlap polling batch N+1. Only one batch is
 * ever in flight, so batch N+1 is handed over only after batch N's outcome came back (the offsets
 * chain). The outcome goes back to the polling thread, the only one that may touch the consumer.
 */
final class BatchPipeline implements AutoCloseable {
  /** What applying one batch came to, table by table; {@code abandoned} when stopped during an outage. */
  record Applied(List<RawRecord> records, List<TableOutcome> tables, boolean abandoned) {}

  /** How one table's part of a batch ended. */
  sealed interface TableOutcome {
    SinkEngine engine();
  }

  /** The part committed (or the table held it already). */
  record Committed(SinkEngine engine, BatchResult result, Duration took) implements TableOutcome {}

  /** The table met a schema change it cannot follow; what preceded it committed (see SinkEngine.apply). */
  record Stopped(SinkEngine engine, IncompatibleSchemaException cause, Duration took) implements TableOutcome {}

  /** The table refuses writes in a way retrying cannot change. */
  record Refused(SinkEngine engine, String reason, RuntimeException cause) implements TableOutcome {}

  /**
   * Where a worker's time went, per thread: the polling thread polling (with holding the batch and
   * queueing its decodes) and holding back (the next batch full while one commits), the applying
   * thread applying. Logged at stop, beside the decoding thread's time ({@link AheadDecoder}).
   */
  static final class Phases {
    private long pollNanos;
    private long heldBackNanos;
    private long heldBackSince = -1;
    private volatile long applyNanos;
    private volatile int batches;

    void polled(long pollNanos) {
      this.pollNanos += pollNanos;
    }

    void heldBack(boolean now) {
      long t = System.nanoTime();
      if (now && heldBackSince < 0) {
        heldBackSince = t;
      } else if (!now && heldBackSince >= 0) {
        heldBackNanos += t - heldBackSince;
        heldBackSince = -1;
      }
    }

    void applied(long nanos) {
      applyNanos += nanos; // one applying thread writes it
      batches++;
    }

    @Override
    public String toString() {
      return String.format(java.util.Locale.ROOT,
          "phases: polling thread %.2f s polling, %.2f s held back; applying thread %.2f s over %d batch(es)",
          pollNanos / 1e9, heldBackNanos / 1e9, applyNanos / 1e9, batches);
    }
  }

  private final Phases phases = new Phases();
  private final ExecutorService applier;
  private Future<Applied> inFlight;
  private Map<TopicPartition, Long> inFlightCounts = Map.of();

  BatchPipeline(String threadName) {
    this.applier = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true); // a stuck commit must not keep the JVM alive after the runner gave up
      return t;
    });
  }

  /** Hands a closed batch to the applying thread; refused while another is in flight. */
  void submit(List<RawRecord> records, Callable<Applied> work) {
    if (inFlight != null) {
      throw new IllegalStateException("a batch is already in flight");
    }
    Map<TopicPartition, Long> counts = new HashMap<>();
    TopicPartition run = null;
    long inRun = 0;
    for (RawRecord r : records) { // records come in runs of one partition
      if (r.topicPartition() != run) {
        if (run != null) {
          counts.merge(run, inRun, Long::sum);
        }
        run = r.topicPartition();
        inRun = 0;
      }
      inRun++;
    }
    if (run != null) {
      counts.merge(run, inRun, Long::sum);
    }
    inFlightCounts = counts;
    inFlight = applier.submit(() -> {
      long t0 = System.nanoTime();
      try {
        return work.call();
      } finally {
        phases.applied(System.nanoTime() - t0);
      }
    });
  }

  Phases phases() {
    return phases;
  }

  /** Whether a batch is being applied (or its outcome has not been taken yet). */
  boolean busy() {
    return inFlight != null;
  }

  /** Whether what is in flight holds no records: a warm-up (tables and indexes loading), which owns no partition's offsets. */
  boolean busyWithoutRecords() {
    return inFlight != null && inFlightCounts.isEmpty();
  }

  /** Whether the batch in flight has finished and its outcome waits to be taken. */
  boolean done() {
    return inFlight != null && inFlight.isDone();
  }

  /**
   * Waits up to {@code timeout} for the batch in flight to finish, without taking its outcome
   * ({@link #await()} does, and rethrows what it threw).
   *
   * @return true once nothing in flight is still running, false when the timeout came first
   */
  boolean awaitDone(Duration timeout) throws InterruptedException {
    if (inFlight == null) {
      return true;
    }
    try {
      inFlight.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | CancellationException e) {
      // finished all the same: the outcome, failure included, is await()'s to take and rethrow
    } catch (TimeoutException e) {
      return false;
    }
    return true;
  }

  /**
   * Waits for the batch in flight and takes its outcome; rethrows what applying it threw.
   *
   * @return null when nothing is in flight
   */
  Applied await() {
    if (inFlight == null) {
      return null;
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return inFlight.get();
        } catch (InterruptedException e) {
          interrupted = true; // a commit cannot be called back half way: wait for it, then restore the flag
        }
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    } finally {
      inFlight = null;
      inFlightCounts = Map.of();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Records of this partition in the batch in flight: applied only once it commits, so still lag. */
  long uncommitted(TopicPartition tp) {
    return inFlightCounts.getOrDefault(tp, 0L);
  }

  /** Lets the batch in flight finish (the caller has stopped it retrying), then ends the thread. */
  @Override
  public void close() {
    applier.shutdown();
    try {
      if (!applier.awaitTermination(2, TimeUnit.MINUTES)) {
        applier.shutdownNow();
      }
    } catch (InterruptedException e) {
      applier.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
