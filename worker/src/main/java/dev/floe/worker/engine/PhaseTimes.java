package dev.floe.worker.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/** Where an engine's time went, per phase of applying a batch (summed over batches): for benchmarks and profiles. */
public final class PhaseTimes {
  private final Map<String, Long> nanos = new LinkedHashMap<>();

  /** Adds the time since {@code startNanos} to a phase and returns now, to start the next phase. */
  synchronized long add(String phase, long startNanos) {
    long now = System.nanoTime();
    nanos.merge(phase, now - startNanos, Long::sum);
    return now;
  }

  /** Seconds per phase, in the order phases first ran: {@code decode 1.20, fold 0.35, ...}. */
  @Override
  public synchronized String toString() {
    StringBuilder out = new StringBuilder();
    nanos.forEach((p, n) -> out.append(out.isEmpty() ? "" : ", ").append(p).append(' ').append(String.format(java.util.Locale.ROOT, "%.2f", n / 1e9)));
    return out.isEmpty() ? "none yet" : out.toString();
  }

  /** Milliseconds per phase, in the order phases first ran. */
  public synchronized Map<String, Long> millis() {
    Map<String, Long> out = new LinkedHashMap<>();
    nanos.forEach((p, n) -> out.put(p, n / 1_000_000));
    return out;
  }
}
