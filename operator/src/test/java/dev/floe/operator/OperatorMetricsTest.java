package dev.floe.operator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The operator's /metrics counts lag reads, their failures, scaling decisions and replicas. */
class OperatorMetricsTest {
  @Test
  void countsLagReadsFailuresScalingAndReplicas() {
    OperatorMetrics metrics = new OperatorMetrics();
    metrics.lagRead(true);
    metrics.lagRead(false);
    metrics.scaled(0, 3);
    metrics.scaled(3, 1);
    metrics.scaled(1, 0);
    metrics.replicas("analytics", "orders", 1, 2);
    metrics.lag("analytics", "orders", 25);

    assertThat(metrics.scrape())
        .contains("floe_operator_lag_reads_total 2.0")
        .contains("floe_operator_lag_read_failures_total 1.0")
        .contains("floe_operator_scaling_decisions_total{direction=\"up\"} 1.0")
        .contains("floe_operator_scaling_decisions_total{direction=\"down\"} 2.0")
        .contains("floe_operator_replicas{namespace=\"analytics\",sink=\"orders\",state=\"running\"} 1.0")
        .contains("floe_operator_replicas{namespace=\"analytics\",sink=\"orders\",state=\"desired\"} 2.0")
        .contains("floe_operator_lag{namespace=\"analytics\",sink=\"orders\"} 25.0");
  }
}
