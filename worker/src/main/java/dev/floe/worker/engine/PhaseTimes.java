package dev.floe.worker.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/** Where an engine's time went, per phase of applying a batch (summed over batches): for benchmarks and profiles. */
public final class PhaseTimes {
  private final Map<String, Long> nanos = new LinkedHashMap<>();

  /** Adds the time since {@code startNanos} to a phase and returns now, to start the next phase. */
  long add(String phase, long startNanos) {
    long now = System.nanoTime();
    nanos.merge(phase, now - startNanos, Long::sum);
    return now;
  }

  /** Milliseconds per phase, in the order phases first ran. */
  public Map<String, Long> millis() {
    Map<String, Long> out = new LinkedHashMap<>();
    nanos.forEach((p, n) -> out.put(p, n / 1_000_000));
    return out;
  }
}
