package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The polling thread, holding the next batch back, waits for the one in flight without taking its
 * outcome: that stays for {@code await()}, which alone clears the pipeline and rethrows a failure.
 */
class BatchPipelineTest {
  @Test
  void waitingForABatchInFlightLeavesItsOutcomeToAwait() throws Exception {
    try (BatchPipeline pipeline = new BatchPipeline("test-apply")) {
      // given a batch in flight that finishes only when released
      CountDownLatch release = new CountDownLatch(1);
      BatchPipeline.Applied outcome = new BatchPipeline.Applied(List.of(), List.of(), false);
      pipeline.submit(List.of(), () -> {
        release.await();
        return outcome;
      });

      // then waiting for it ends at the timeout while it runs
      assertThat(pipeline.awaitDone(Duration.ofMillis(20))).isFalse();
      assertThat(pipeline.busy()).isTrue();

      // and, once it finished, at once, still busy until its outcome is taken
      release.countDown();
      assertThat(pipeline.awaitDone(Duration.ofMinutes(1))).isTrue();
      assertThat(pipeline.done()).isTrue();
      assertThat(pipeline.busy()).isTrue();
      assertThat(pipeline.await()).isSameAs(outcome);
      assertThat(pipeline.busy()).isFalse();
      assertThat(pipeline.awaitDone(Duration.ofMinutes(1))).as("nothing in flight").isTrue();
    }
  }

  @Test
  void aBatchThatFailedIsDoneAndItsFailureIsRethrownByAwait() throws Exception {
    try (BatchPipeline pipeline = new BatchPipeline("test-apply")) {
      // given a batch whose apply throws
      pipeline.submit(List.of(), () -> {
        throw new IllegalStateException("catalog refused the commit");
      });

      // then waiting for it does not throw, and await() does
      assertThat(pipeline.awaitDone(Duration.ofMinutes(1))).isTrue();
      assertThatThrownBy(pipeline::await).isInstanceOf(IllegalStateException.class).hasMessage("catalog refused the commit");
      assertThat(pipeline.busy()).isFalse();
    }
  }
}
