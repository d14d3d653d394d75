package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Work split over two cores: every index once, a failure thrown only once both sides ended, on named threads. */
class TwoCoresTest {

  @Test
  void aLongLoopVisitsEveryIndexOnceAcrossBothHalves() {
    // given a loop long enough to be split
    int n = 2 * TwoCores.FROM + 3;
    AtomicIntegerArray visits = new AtomicIntegerArray(n);

    // when it runs
    TwoCores.forRange(n, (from, to) -> {
      for (int i = from; i < to; i++) {
        visits.incrementAndGet(i);
      }
    });

    // then every index was visited exactly once
    for (int i = 0; i < n; i++) {
      assertThat(visits.get(i)).as("index %d", i).isEqualTo(1);
    }
  }

  @Test
  void aFailureOnOneSideIsThrownOnlyAfterTheOtherSideEnded() {
    // given a side that fails at once and another that is still running
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean besideEnded = new AtomicBoolean();

    // when both run, then the failure comes out, and the other side had ended by then
    assertThatThrownBy(() -> TwoCores.both(() -> {
      await(started);
      throw new IllegalStateException("here failed");
    }, () -> {
      started.countDown();
      sleepBriefly();
      besideEnded.set(true);
    })).isInstanceOf(IllegalStateException.class).hasMessage("here failed");
    assertThat(besideEnded).isTrue();
  }

  @Test
  void whenBothSidesFailThisThreadsFailureIsThrownWithTheOtherAddedToIt() {
    assertThatThrownBy(() -> TwoCores.both(() -> {
      throw new IllegalStateException("here failed");
    }, () -> {
      throw new IllegalArgumentException("beside failed");
    })).isInstanceOf(IllegalStateException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).singleElement().isInstanceOf(IllegalArgumentException.class));
  }

  @Test
  void workBesideRunsOnANamedDaemonThreadOfFloesOwn() {
    // given work beside this thread
    AtomicReference<Thread> beside = new AtomicReference<>();

    // when it has ended
    TwoCores.both(() -> { }, () -> beside.set(Thread.currentThread()));

    // then it ran on one of Floe's side threads (a thread dump names it), a daemon that never holds the JVM up
    assertThat(beside.get().getName()).startsWith("floe-side-");
    assertThat(beside.get().isDaemon()).isTrue();
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Gives the failing side time to end first: what the test checks is that the call still waits. */
  private static void sleepBriefly() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
