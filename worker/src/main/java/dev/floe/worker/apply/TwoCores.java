package dev.floe.worker.apply;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Work that touches nothing in common run on two cores: a long loop split in halves, or two walks
 * side by side. A batch's index lookups and upkeep mostly wait for memory, its keys being spread
 * over far more than a cache holds, and two cores wait for twice as many lines at once. (Splitting
 * the resolver's per-key loops the same way measured no gain on the contest at a tenth: 15.15–15.91 s
 * against 15.40–15.63 s; the decoding thread already uses the second core then.)
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
    if (half == n) {
      body.run(0, n);
    } else {
      both(() -> body.run(0, half), () -> body.run(half, n));
    }
  }

  /**
   * Runs {@code here} on this thread and {@code beside} on another core, and returns once both
   * ended, even when one failed (nothing is left running over the caller's data); a failure of
   * {@code here} is thrown with one of {@code beside} added to it, or that one alone.
   */
  static void both(Runnable here, Runnable beside) {
    CompletableFuture<Void> other = CompletableFuture.runAsync(beside, SideThreads.EXECUTOR);
    RuntimeException failure = null;
    try {
      here.run();
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      other.join();
    } catch (CompletionException e) {
      failure = withFailureOf(failure, e);
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * {@code failure} with what failed work on another thread threw added to it, or that alone when
   * there was no failure yet: how work split over threads words its failures as one.
   */
  static RuntimeException withFailureOf(RuntimeException failure, CompletionException joined) {
    RuntimeException cause = joined.getCause() instanceof RuntimeException r ? r : joined;
    if (failure == null) {
      return cause;
    }
    failure.addSuppressed(cause);
    return failure;
  }
}
