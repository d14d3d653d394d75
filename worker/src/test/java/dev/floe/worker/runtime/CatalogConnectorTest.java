package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.junit.jupiter.api.Test;

/** At start-up a catalog outage is waited out, a refusal stops at once with its cause. */
class CatalogConnectorTest {

  @Test
  void aRefusalStopsAtOnceWithItsCause() {
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> CatalogConnector.connect(() -> {
      attempts.incrementAndGet();
      throw new ForbiddenException("Forbidden: principal floe may not load namespace lake");
    }, () -> false))
        .isInstanceOf(PermanentFailureException.class)
        .hasMessageContaining("principal floe may not load namespace lake")
        .hasCauseInstanceOf(ForbiddenException.class);
    assertThat(attempts).hasValue(1);
  }

  @Test
  void anOutageIsRetriedUntilStopped() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    WorkerMetrics metrics = new WorkerMetrics("floe-orders");
    assertThat(CatalogConnector.connect(() -> {
      attempts.incrementAndGet();
      throw new RuntimeIOException(new ConnectException("Connection refused"), "catalog");
    }, () -> attempts.get() >= 2, metrics::catalogFailed)).isNull();
    assertThat(attempts).hasValue(2);
    // counted from the first failure, before any table metric exists
    assertThat(metrics.scrape()).contains("floe_catalog_failures_total{sink=\"floe-orders\"} 2.0");
  }

  @Test
  void aWarehouseWhereNothingCanBeCreatedIsARefusal() {
    assertThatThrownBy(() -> CatalogConnector.connect(() -> {
      throw new RuntimeIOException(new IOException("Mkdirs failed to create /proc/lake"), "Failed to create file");
    }, () -> false)).isInstanceOf(PermanentFailureException.class).hasMessageContaining("Mkdirs failed to create /proc/lake");
  }
}
