package dev.floe.worker.testing;

import java.util.concurrent.CountDownLatch;

/** Waiting on a latch from inside a callback that cannot throw a checked exception. */
public final class Latches {
  private Latches() {}

  /** Waits for the latch; interrupted, restores the flag and throws, so the callback ends at once. */
  public static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
