package dev.floe.e2e.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Samples a running worker every interval: records applied (from the table's offsets), lag (events
 * produced minus applied), and the heap it uses and holds live (from its Prometheus endpoint).
 */
final class Sampler {
  /**
   * One sample: seconds since start, records applied, lag, worker heap bytes in use (garbage not yet
   * collected included), and the old generation's bytes after its last full collection (what the
   * worker holds live; -1 before the first).
   */
  record Sample(double seconds, long applied, long lag, long heapBytes, long liveBytes) {}

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final List<Sample> samples = new ArrayList<>();
  private final URI metrics;

  Sampler(int port) {
    this.metrics = URI.create("http://127.0.0.1:" + port + "/metrics");
  }

  /** Samples until everything produced is applied; returns the samples. */
  List<Sample> until(long produced, LongSupplier applied, Duration interval, Duration timeout) throws Exception {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      long a = applied.getAsLong();
      String scrape = scrape();
      samples.add(new Sample((System.nanoTime() - start) / 1e9, a, produced - a, (long) sum(scrape, "jvm_memory_used_bytes", "area=\"heap\""),
          liveAfterFullCollection(scrape)));
      if (a >= produced) {
        return samples;
      }
      Thread.sleep(interval.toMillis());
    }
    throw new AssertionError("the worker did not catch up within " + timeout + "; last sample " + samples.get(samples.size() - 1));
  }

  /** The worker process's CPU, JIT compilation and collector pause seconds so far (0 for one it does not export, -1 each when its endpoint does not answer). */
  record Usage(double cpuSeconds, double compilationSeconds, double gcPauseSeconds) {
    /** What was used between {@code earlier} and this reading. */
    Usage since(Usage earlier) {
      return new Usage(cpuSeconds - earlier.cpuSeconds, compilationSeconds - earlier.compilationSeconds, gcPauseSeconds - earlier.gcPauseSeconds);
    }
  }

  Usage usage() {
    String scrape = scrape(); // one reading: the three figures from the same moment
    if (scrape == null) {
      return new Usage(-1, -1, -1);
    }
    return new Usage(sum(scrape, "process_cpu_time_ns_total", "") / 1e9, sum(scrape, "jvm_compilation_time_ms_total", "") / 1e3,
        sum(scrape, "jvm_gc_pause_seconds_sum", ""));
  }

  /** The sum of a metric's series (name as Prometheus shows it), or -1 when the endpoint does not answer. */
  double sum(String name) {
    return sum(name, "");
  }

  /** The sum of a metric's series whose labels contain {@code labels} (such as {@code trigger="idle"}), or -1. */
  double sum(String name, String labels) {
    return sum(scrape(), name, labels);
  }

  /** Micrometer's jvm_gc_live_data_size_bytes (set at each full collection), or -1 before the first or when the endpoint does not answer. */
  private static long liveAfterFullCollection(String scrape) {
    double live = sum(scrape, "jvm_gc_live_data_size_bytes", "");
    return live > 0 ? (long) live : -1;
  }

  /** The worker's Prometheus text, or null when the endpoint does not answer. */
  private String scrape() {
    try {
      return http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (Exception e) {
      return null;
    }
  }

  private static double sum(String scrape, String name, String labels) {
    if (scrape == null) {
      return -1;
    }
    double sum = 0;
    for (String line : scrape.split("\n")) {
      if ((line.startsWith(name + "{") || line.startsWith(name + " ")) && line.contains(labels)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }
}
