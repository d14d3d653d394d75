package dev.floe.worker.apply;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The daemon threads that run a batch's work beside the applying thread ({@code floe-apply-<sink>}):
 * its deletes, the upper half of a long loop. Named {@code floe-side-N}, kept between batches.
 */
final class SideThreads {
  private static final AtomicInteger NUMBER = new AtomicInteger();

  /**
   * Where that work runs. Not {@code CompletableFuture}'s default: on one or two cores (the common
   * pool's parallelism below two) that starts a new unnamed thread for every task, {@code Thread-N}
   * in a thread dump or a JFR, and on larger machines it is the JVM's shared common pool. A thread
   * idle for a minute ends, so an idle worker holds none.
   */
  static final ExecutorService EXECUTOR = Executors.newCachedThreadPool(task -> {
    Thread t = new Thread(task, "floe-side-" + NUMBER.incrementAndGet());
    t.setDaemon(true);
    return t;
  });

  private SideThreads() {}
}
