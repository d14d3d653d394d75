package dev.floe.worker.runtime;

import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.SinkEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes polled records ahead of their batch on threads of their own (see
 * {@link SinkEngine#decodeAhead}). Polling (fetching and parsing Kafka's record batches) and
 * decoding each cost about as much per record as applying does, so on one thread they made the
 * polling thread the bottleneck while the applying thread waited; on three, the two cores stay
 * busy. The polling thread queues each poll's records; each decoded record keeps its decode in
 * place of its bytes ({@link RawRecord#keepDecoded}), so the batches held meanwhile cost what their
 * rows cost, not what their JSON did (most of a worker's heap, and of its collector's time, went to
 * holding two batches of bytes). The applying thread waits, before it applies a batch, for the
 * polls queued before the batch was handed over. Best effort: a record left undecoded (it failed
 * here, or its poll's decode was dropped) is decoded at apply time, as it always was.
 *
 * The benchmark's consume+decode ceiling hands its polls to its decoding thread through this class
 * too, so the two compare on the same hand-off.
 *
 * @param <T> what decodes a record: the engine of the table it goes to, in a worker
 */
public final class AheadDecoder<T> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AheadDecoder.class);

  private final ExecutorService pool;
  /** Parts each poll is split into, one per decoding thread. */
  private final int threads;
  /** Decodes a record for the table it goes to (the worker's: {@link SinkEngine#decodeAhead}); null when it cannot ahead. */
  private final BiFunction<T, RawRecord, Decoded> decodeAhead;
  /** Polls queued since the last hand-over, each as the decodes of its parts; the polling thread's alone. */
  private final List<List<Future<?>>> queued = new ArrayList<>();
  private final AtomicLong decodeNanos = new AtomicLong();
  /** The polling thread's alone. */
  private long waitNanos;

  /**
   * Polls a poll may be queued behind, undecoded. A record's bytes are garbage once it is decoded;
   * a record waiting longer than the collector's young interval is copied with its bytes, then
   * promoted, and collected again with the old generation: with polling far ahead of decoding,
   * bytes waiting to be decoded were a third of what a worker's collector copied (full-size
   * {@code orders}). Polling waits instead: the decoder sets the pace either way.
   */
  static final int POLLS_AHEAD = 2;

  /** Polls of fewer records than this are decoded by one thread: splitting costs more than it saves. */
  static final int SPLIT_FROM = 1_000;

  /**
   * A decoder for a worker's tables: each record decoded by its table's engine, on one thread, or on
   * {@code -Dfloe.decodeThreads=N}. With packed batches the decoding thread is the busiest and the
   * polling thread waits for it, yet a second one gained nothing past the noise on two cores
   * (full-size {@code orders}: 40.0 s and 46.3 s with two, 41.6 s and 43.6 s with one; the applying
   * thread loses what the decoding threads gain): one stays the default.
   */
  static AheadDecoder<SinkEngine> forEngines(String name) {
    return new AheadDecoder<>(name, SinkEngine::decodeAhead, Integer.getInteger("floe.decodeThreads", 1));
  }

  /** One decoding thread, named after {@code name}, decoding each record with {@code decodeAhead}. */
  public AheadDecoder(String name, BiFunction<T, RawRecord, Decoded> decodeAhead) {
    this(name, decodeAhead, 1);
  }

  AheadDecoder(String name, BiFunction<T, RawRecord, Decoded> decodeAhead, int threads) {
    this.decodeAhead = decodeAhead;
    this.threads = Math.max(1, threads);
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    this.pool = Executors.newFixedThreadPool(this.threads, r -> {
      Thread t = new Thread(r, "floe-decode-" + name + (this.threads == 1 ? "" : "-" + n.incrementAndGet()));
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Queues one poll's records, as the batch holds them, split by the engine of their table; first
   * waits for the poll {@link #POLLS_AHEAD} back to be decoded, so that at most that many polls
   * wait undecoded once this one is queued.
   */
  public void submit(Map<T, List<RawRecord>> polled) {
    if (!polled.isEmpty() && !pool.isShutdown()) {
      if (queued.size() >= POLLS_AHEAD) {
        long t0 = System.nanoTime();
        queued.get(queued.size() - POLLS_AHEAD).forEach(AheadDecoder::await);
        waitNanos += System.nanoTime() - t0;
      }
      List<Future<?>> parts = new ArrayList<>(threads);
      for (Map<T, List<RawRecord>> part : parts(polled)) {
        parts.add(pool.submit(() -> part.forEach(this::decode)));
      }
      queued.add(parts);
    }
  }

  /** Seconds the polling thread waited for the decoding thread to catch up. */
  double waitSeconds() {
    return waitNanos / 1e9;
  }

  /**
   * For the batch being handed over: a wait (run on the applying thread) for every poll queued so
   * far, which the decoding thread finishes first, in order. After it, no record of those polls is
   * being decoded, so apply decodes the ones left without racing this thread for their bytes.
   */
  public Runnable takeQueued() {
    List<Future<?>> all = new ArrayList<>();
    queued.forEach(all::addAll);
    queued.clear();
    if (pool.isShutdown()) {
      return () -> {}; // closed: nothing is decoding any more, apply decodes what is left
    }
    return () -> all.forEach(AheadDecoder::await);
  }

  /** Forgets every queued decode: the records are re-read from the tables' offsets. */
  void clear() {
    queued.forEach(parts -> parts.forEach(f -> f.cancel(false)));
    queued.clear();
  }

  /**
   * A poll's records split into one part per decoding thread, each table's records cut into
   * consecutive runs; one part when there is one thread or few records.
   */
  private List<Map<T, List<RawRecord>>> parts(Map<T, List<RawRecord>> polled) {
    int records = polled.values().stream().mapToInt(List::size).sum();
    if (threads == 1 || records < SPLIT_FROM) {
      return List.of(polled);
    }
    List<Map<T, List<RawRecord>>> out = new ArrayList<>(threads);
    for (int i = 0; i < threads; i++) {
      out.add(new java.util.HashMap<>());
    }
    polled.forEach((table, list) -> {
      int size = (list.size() + threads - 1) / threads;
      for (int i = 0, from = 0; from < list.size(); i++, from += size) {
        out.get(i).put(table, list.subList(from, Math.min(list.size(), from + size)));
      }
    });
    return out;
  }

  /** Seconds the decoding thread spent decoding. */
  double decodeSeconds() {
    return decodeNanos.get() / 1e9;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }

  private void decode(T table, List<RawRecord> records) {
    long t0 = System.nanoTime();
    for (RawRecord r : records) {
      try {
        Decoded d = decodeAhead.apply(table, r);
        if (d != null) {
          r.keepDecoded(d);
        }
      } catch (RuntimeException e) {
        LOG.debug("record {}@{} left to decode at apply time: {}", r.topicPartition(), r.offset(), e.toString());
      }
    }
    decodeNanos.addAndGet(System.nanoTime() - t0);
  }

  /**
   * Waits for the cut even when interrupted (the decoding thread only computes, so it is soon
   * there): applying while it still decodes records of the batch could find a record's bytes gone
   * halfway through decoding it.
   */
  private static void await(Future<?> cut) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          cut.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (CancellationException | ExecutionException e) {
          LOG.debug("the batch's records left undecoded are decoded at apply time: {}", e.toString()); // best effort, see the class
          return;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
