package dev.floe.worker.apply;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A loop whose iterations touch nothing in common, split in two halves on two cores once it is
 * long: a batch's index lookups mostly wait for memory, its keys being spread over far more than a
 * cache holds, and two cores wait for twice as many lines at once. (Splitting the resolver's per-key
 * loops the same way measured no gain on the contest at a tenth: 15.15–15.91 s against 15.40–15.63 s.)
 */
final class TwoCores {
  /** Iterations from which a loop is split. */
  static final int FROM = 50_000;

  /** The body of a loop over a range of indexes. */
  @FunctionalInterface
  interface Range {
    void run(int from, int to);
  }

  private TwoCores() {}

  /** Runs {@code body} over [0, n): the upper half on another core when n is at least {@link #FROM}. */
  static void forRange(int n, Range body) {
    int half = n < FROM ? n : n / 2;
    CompletableFuture<Void> upper = half == n ? CompletableFuture.completedFuture(null) : CompletableFuture.runAsync(() -> body.run(half, n));
    RuntimeException failure = null;
    try {
      body.run(0, half);
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      upper.join(); // also after a failure: nothing is left running over the caller's arrays
    } catch (CompletionException e) {
      RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : e;
      if (failure == null) {
        failure = cause;
      } else {
        failure.addSuppressed(cause);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
