package dev.floe.worker.runtime;

import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.SinkEngine;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes polled records ahead of their batch on a thread of its own (see
 * {@link SinkEngine#decodeAhead}). Polling (fetching and parsing Kafka's record batches) and
 * decoding each cost about as much per record as applying does, so on one thread they made the
 * polling thread the bottleneck while the applying thread waited; on three, the two cores stay
 * busy. The polling thread queues each poll's records; the applying thread takes the decodes of
 * its batch when it starts, waiting for what is still queued. Best effort: a record left undecoded
 * (it failed here, or its poll's decode was dropped) is decoded at apply time, as it always was.
 */
final class AheadDecoder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AheadDecoder.class);

  private final ExecutorService thread;
  /** Decoded since the last hand-over, by identity; the decoding thread's alone. */
  private Map<RawRecord, Decoded> decoding = new IdentityHashMap<>();
  /** Polls queued since the last hand-over; the polling thread's alone. */
  private final List<Future<?>> queued = new ArrayList<>();
  private final AtomicLong decodeNanos = new AtomicLong();

  AheadDecoder(String name) {
    this.thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "floe-decode-" + name);
      t.setDaemon(true);
      return t;
    });
  }

  /** Queues one poll's records, as the batch holds them, split by the engine of their table. */
  void submit(Map<SinkEngine, List<RawRecord>> polled) {
    if (!polled.isEmpty() && !thread.isShutdown()) {
      queued.add(thread.submit(() -> polled.forEach(this::decode)));
    }
  }

  /**
   * The decodes of every poll queued so far, for the batch being handed over: the supplier (called
   * on the applying thread) waits for those still queued, which the decoding thread finishes first,
   * in order, and returns them by identity. Records of those polls that are not in the batch
   * (waiting for the next one, or revoked) are decoded again when they are applied.
   */
  Supplier<Map<RawRecord, Decoded>> takeQueued() {
    queued.clear();
    if (thread.isShutdown()) {
      return Map::of; // closed: apply decodes them all
    }
    Future<Map<RawRecord, Decoded>> cut = thread.submit(() -> {
      Map<RawRecord, Decoded> done = decoding;
      decoding = new IdentityHashMap<>(done.size());
      return done;
    });
    return () -> join(cut);
  }

  /** Forgets every queued decode: the records are re-read from the tables' offsets. */
  void clear() {
    queued.forEach(f -> f.cancel(false));
    queued.clear();
    if (!thread.isShutdown()) {
      thread.submit(() -> {
        decoding = new IdentityHashMap<>();
      });
    }
  }

  /** Seconds the decoding thread spent decoding. */
  double decodeSeconds() {
    return decodeNanos.get() / 1e9;
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }

  private void decode(SinkEngine engine, List<RawRecord> records) {
    long t0 = System.nanoTime();
    for (RawRecord r : records) {
      try {
        Decoded d = engine.decodeAhead(r);
        if (d != null) {
          decoding.put(r, d);
        }
      } catch (RuntimeException e) {
        LOG.debug("record {}@{} left to decode at apply time: {}", r.topicPartition(), r.offset(), e.toString());
      }
    }
    decodeNanos.addAndGet(System.nanoTime() - t0);
  }

  private static Map<RawRecord, Decoded> join(Future<Map<RawRecord, Decoded>> cut) {
    try {
      return cut.get();
    } catch (CancellationException | ExecutionException e) {
      LOG.debug("the batch's records are decoded at apply time: {}", e.toString()); // best effort, see the class
      return Map.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the applying thread is stopping: what is missing is decoded, or never applied
      return Map.of();
    }
  }
}
