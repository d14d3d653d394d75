package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.engine.TableRouter;
import dev.floe.worker.testing.LocalWarehouse;
import java.util.Set;
import java.util.stream.Collectors;

/** A worker of a sink running in this JVM: its runner on a thread of its own, and its metrics. */
final class RunningWorker {
  final SinkRunner runner;
  final WorkerMetrics metrics;
  private final Thread thread;

  private RunningWorker(SinkRunner runner, WorkerMetrics metrics) {
    this.runner = runner;
    this.metrics = metrics;
    this.thread = new Thread(runner, "worker");
  }

  /** Starts a worker of the sink, routing its topics as {@code floe run} does. */
  static RunningWorker start(SinkSpec spec, LocalWarehouse warehouse) {
    return start(spec, warehouse.catalog(), null);
  }

  /** Starts a worker of the sink on this catalog. */
  static RunningWorker start(SinkSpec spec, org.apache.iceberg.catalog.Catalog catalog) {
    return start(spec, catalog, null);
  }

  /** Starts a worker of the sink that is a static member of its group under {@code instanceId}. */
  static RunningWorker start(SinkSpec spec, LocalWarehouse warehouse, String instanceId) {
    return start(spec, warehouse.catalog(), instanceId);
  }

  private static RunningWorker start(SinkSpec spec, org.apache.iceberg.catalog.Catalog catalog, String instanceId) {
    WorkerMetrics metrics = new WorkerMetrics(spec.sinkId());
    RunningWorker w = new RunningWorker(new SinkRunner(spec, TableRouter.of(spec, catalog), metrics,
        SecretResolver.fromEnvironment(), instanceId), metrics);
    w.thread.start();
    return w;
  }

  /** The partitions this worker's {@code floe_lag} gauges report. */
  Set<Integer> lagPartitions() {
    return metrics.registry().find("floe.lag").tagKeys("sink").gauges().stream()
        .map(g -> Integer.parseInt(g.getId().getTag("partition")))
        .collect(Collectors.toSet());
  }

  long committedBatches() {
    return metrics.committedBatches();
  }

  /** Waits for the worker to stop by itself (it failed); returns why, or null if it is still running. */
  Throwable awaitFailure(java.time.Duration timeout) {
    try {
      thread.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      runner.stop();
      return null;
    }
    runner.close();
    return runner.failure();
  }

  /**
   * Ends its loop but never closes its consumer, as a crash would: it does not leave the group (its
   * client stays connected, so the group still counts it a member until someone takes its place).
   * {@link SinkRunner#close()} it afterwards to release the client.
   */
  void abandon() {
    runner.stop();
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    assertThat(thread.isAlive()).as("worker loop ended").isFalse();
  }

  /** Stops it as SIGTERM does, and checks that it stopped cleanly. */
  void stop() {
    runner.stop();
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    assertThat(thread.isAlive()).as("worker stopped").isFalse();
    assertThat(runner.failure()).as("worker failure").isNull();
    runner.close();
  }
}
