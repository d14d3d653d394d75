package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** The worker's metrics endpoint says where its CPU went: process CPU time, JIT compilation, collector pauses. */
class JvmMetersTest {

  @Test
  void cpuCompilationAndCollectionsAreExportedUntilClosed() {
    // given the JVM's meters on a worker's registry
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    JvmMeters jvm = JvmMeters.bindTo(registry);

    // when the process collects
    System.gc();

    // then its CPU time, its JIT compilation time and the collection are on the endpoint
    await().atMost(Duration.ofSeconds(10)).until(() -> value(registry.scrape(), "jvm_gc_pause_seconds_count").orElse(0) >= 1);
    String scrape = registry.scrape();
    assertThat(value(scrape, "process_cpu_time_ns_total").orElse(0)).isPositive();
    assertThat(value(scrape, "jvm_compilation_time_ms_total").orElse(0)).isPositive();
    assertThat(scrape).contains("jvm_threads_live_threads", "jvm_classes_loaded_classes");

    // and once closed, it stops listening for collections
    jvm.close();
    double counted = value(registry.scrape(), "jvm_gc_pause_seconds_count").orElseThrow();
    System.gc();
    await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
        .until(() -> value(registry.scrape(), "jvm_gc_pause_seconds_count").orElseThrow() == counted);
  }

  /** The sum of a metric's series in a Prometheus scrape; empty when it has none. */
  private static OptionalDouble value(String scrape, String name) {
    double sum = 0;
    boolean found = false;
    for (String line : scrape.split("\n")) {
      if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        found = true;
      }
    }
    return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
  }
}
