package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.testing.Latches;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Polling runs at most {@link AheadDecoder#POLLS_AHEAD} polls ahead of the decoding thread: records
 * waiting to be decoded still hold their bytes, and bytes held past a young collection are copied
 * and promoted. Every record submitted is decoded, in order, before the batch is handed over.
 */
class AheadDecoderTest {

  @Test
  void pollingWaitsWhileTwoPollsAreUndecodedAndGoesOnOnceTheOldestIsDecoded() throws Exception {
    // given a decoding thread held at the first record it decodes
    CountDownLatch decoding = new CountDownLatch(1);
    List<Long> decoded = java.util.Collections.synchronizedList(new ArrayList<>());
    try (AheadDecoder<String> decoder = new AheadDecoder<>("test", (table, r) -> {
      Latches.await(decoding);
      decoded.add(r.offset());
      return new Decoded.Skip("decoded in the test");
    })) {
      List<RawRecord> first = polled(0, 3);
      decoder.submit(Map.of("t", first));
      decoder.submit(Map.of("t", polled(3, 3)));

      // when a third poll is submitted while the first two are undecoded
      Thread polling = new Thread(() -> decoder.submit(Map.of("t", polled(6, 3))), "polling");
      polling.start();

      // then polling waits for the decoder
      await().atMost(Duration.ofSeconds(10)).until(() -> polling.getState() == Thread.State.WAITING);
      assertThat(decoded).isEmpty();

      // and once the decoder goes on, polling does too, and every record is decoded in poll order
      decoding.countDown();
      polling.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(polling.isAlive()).isFalse();
      decoder.takeQueued().run();
      assertThat(decoded).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
      assertThat(first).allSatisfy(r -> assertThat(r.decodedAhead()).isInstanceOf(Decoded.Skip.class));
      assertThat(decoder.waitSeconds()).isPositive();
    }
  }

  @Test
  void twoPollsAheadDoNotWait() {
    // given a decoding thread that never gets to decode
    CountDownLatch never = new CountDownLatch(1);
    try (AheadDecoder<String> decoder = new AheadDecoder<>("test", (table, r) -> {
      Latches.await(never);
      return null;
    })) {
      // when two polls are submitted, then neither waits
      decoder.submit(Map.of("t", polled(0, 2)));
      decoder.submit(Map.of("t", polled(2, 2)));
      assertThat(decoder.waitSeconds()).isZero();
      never.countDown();
    }
  }

  @Test
  void twoDecodingThreadsDecodeEveryRecordOnceBeforeTheBatchIsHandedOver() {
    // given two decoding threads and polls large enough to be split between them
    java.util.Set<Long> decoded = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.atomic.AtomicInteger decodes = new java.util.concurrent.atomic.AtomicInteger();
    java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    List<RawRecord> all = new ArrayList<>();
    try (AheadDecoder<String> decoder = new AheadDecoder<>("test", (table, r) -> {
      threads.add(Thread.currentThread().getName());
      decodes.incrementAndGet();
      decoded.add(r.offset());
      return new Decoded.Skip("decoded in the test");
    }, 2)) {
      // when five polls of two tables are submitted and the batch is handed over
      for (int p = 0; p < 5; p++) {
        List<RawRecord> a = polled(p * 4_000L, 2_000);
        List<RawRecord> b = polled(p * 4_000L + 2_000, 2_000);
        all.addAll(a);
        all.addAll(b);
        decoder.submit(Map.of("a", a, "b", b));
      }
      decoder.takeQueued().run();

      // then every record was decoded once, on both threads, and keeps its decode
      assertThat(decodes.get()).isEqualTo(20_000);
      assertThat(decoded).hasSize(20_000);
      assertThat(threads).hasSize(2);
      assertThat(all).allSatisfy(r -> assertThat(r.decodedAhead()).isInstanceOf(Decoded.Skip.class));
    }
  }

  private static List<RawRecord> polled(long from, int count) {
    List<RawRecord> out = new ArrayList<>();
    for (long o = from; o < from + count; o++) {
      out.add(new RawRecord("t", 0, o, new byte[] {1}, new byte[] {2}));
    }
    return out;
  }
}
