package dev.floe.operator;

import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operator's Prometheus metrics: JOSDK's own reconcile metrics ({@code
 * operator_sdk_reconciliations_*}), plus lag reads, their failures and scaling decisions.
 */
public final class OperatorMetrics {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Counter lagReads;
  private final Counter lagReadFailures;
  private final Counter scaledUp;
  private final Counter scaledDown;
  private final Map<List<String>, AtomicInteger> replicas = new ConcurrentHashMap<>();

  public OperatorMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    lagReads = Counter.builder("floe.operator.lag.reads").description("consumer-group lag reads (Kafka Admin client)").register(registry);
    lagReadFailures = Counter.builder("floe.operator.lag.read.failures")
        .description("lag reads that failed; the sink's workers are held meanwhile").register(registry);
    scaledUp = scaling("up");
    scaledDown = scaling("down");
  }

  private Counter scaling(String direction) {
    return Counter.builder("floe.operator.scaling.decisions").tag("direction", direction)
        .description("changes of a sink's worker count").register(registry);
  }

  /** JOSDK's reconcile metrics, into the same registry; not per resource, so deleted sinks leave no series behind. */
  public MicrometerMetrics reconcileMetrics() {
    return MicrometerMetrics.withoutPerResourceMetrics(registry);
  }

  public void lagRead(boolean ok) {
    lagReads.increment();
    if (!ok) {
      lagReadFailures.increment();
    }
  }

  public void scaled(int from, int to) {
    (to > from ? scaledUp : scaledDown).increment();
  }

  /** A sink's workers, running and desired: replicas over time on the dashboard. */
  public void replicas(String namespace, String sink, int running, int desired) {
    gauge(namespace, sink, "running").set(running);
    gauge(namespace, sink, "desired").set(desired);
  }

  private AtomicInteger gauge(String namespace, String sink, String state) {
    return replicas.computeIfAbsent(List.of(namespace, sink, state), k -> {
      AtomicInteger value = new AtomicInteger();
      Gauge.builder("floe.operator.replicas", value, AtomicInteger::get)
          .tags("namespace", namespace, "sink", sink, "state", state)
          .description("workers of a sink: running (the Deployment's) or desired (what the lag calls for)").register(registry);
      return value;
    });
  }

  /** The Prometheus text exposition of every metric. */
  public String scrape() {
    return registry.scrape();
  }
}
