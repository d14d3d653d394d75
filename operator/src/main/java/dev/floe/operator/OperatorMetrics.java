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
import java.util.concurrent.atomic.AtomicLong;

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
  private final Map<List<String>, AtomicLong> gauges = new ConcurrentHashMap<>();

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
    String about = "workers of a sink: running (the Deployment's) or desired (what the lag calls for)";
    gauge("floe.operator.replicas", about, "namespace", namespace, "sink", sink, "state", "running").set(running);
    gauge("floe.operator.replicas", about, "namespace", namespace, "sink", sink, "state", "desired").set(desired);
  }

  /**
   * A sink's consumer-group lag as the operator last read it: there also while the sink is scaled
   * to zero and no worker reports its own {@code floe_lag}.
   */
  public void lag(String namespace, String sink, long total) {
    gauge("floe.operator.lag", "records the sink's consumer group is behind, over all partitions", "namespace", namespace, "sink", sink)
        .set(total);
  }

  private AtomicLong gauge(String name, String description, String... tags) {
    List<String> key = new java.util.ArrayList<>(List.of(tags));
    key.add(0, name);
    return gauges.computeIfAbsent(List.copyOf(key), k -> {
      AtomicLong value = new AtomicLong();
      Gauge.builder(name, value, AtomicLong::get).tags(tags).description(description).register(registry);
      return value;
    });
  }

  /** The Prometheus text exposition of every metric. */
  public String scrape() {
    return registry.scrape();
  }
}
