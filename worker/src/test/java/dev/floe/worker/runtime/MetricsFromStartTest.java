package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.Step;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker exports its tables' metrics from startup, before it commits anything, with the table's own last commit. */
class MetricsFromStartTest {
  @TempDir Path dir;

  @Test
  void perTableMetricsAppearAtStartupWithTheTablesLastCommitAndTheExactSnapshotId() {
    String topic = TestKafka.topic("orders", OrdersTable.PARTITIONS);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = KafkaRuntimeTest.sink(topic, warehouse, TestKafka.topic("dlq", 1));
    OrdersSource source = new OrdersSource(topic);
    TestKafka.produce(source.records(List.of(new Step.Upsert(1, Map.of("qty", 1)), new Step.Upsert(2, Map.of("qty", 2))), new OrdersModel()));
    // given a table an earlier worker committed to
    RunningWorker first = RunningWorker.start(spec, warehouse);
    await().atMost(Duration.ofSeconds(40)).until(() -> KafkaRuntimeTest.applied(spec, warehouse) == 2);
    first.stop();
    Table table = warehouse.catalog().loadTable(TableIdentifier.parse(spec.table().name()));
    Snapshot last = table.snapshot(OffsetLedger.read(table, spec.sinkId()).snapshotId());

    // when a new worker starts with nothing to consume
    RunningWorker worker = RunningWorker.start(spec, warehouse);
    String tags = "sink=\"" + spec.sinkId() + "\",table=\"" + spec.table().name() + "\"";
    await().atMost(Duration.ofSeconds(30)).until(() -> sample(worker, "floe_last_commit_time_seconds{" + tags + "}").isPresent()
        && worker.lagPartitions().size() == OrdersTable.PARTITIONS);
    String scrape = worker.metrics.scrape();
    worker.stop();

    // then freshness is the table's last commit, the snapshot id is exact, the table is not stopped, and there is no lag
    assertThat(worker.committedBatches()).isZero();
    assertThat(sample(scrape, "floe_last_commit_time_seconds{" + tags + "}")).hasValue((double) (last.timestampMillis() / 1000));
    assertThat(scrape).contains("floe_last_snapshot_info{sink=\"" + spec.sinkId() + "\",snapshot_id=\"" + last.snapshotId()
        + "\",table=\"" + spec.table().name() + "\"} 1");
    assertThat(sample(scrape, "floe_table_stopped{" + tags + "}")).hasValue(0.0);
    assertThat(scrape).doesNotContain("floe_last_snapshot_id");
    for (int p = 0; p < OrdersTable.PARTITIONS; p++) {
      assertThat(sample(scrape, "floe_lag{partition=\"" + p + "\",sink=\"" + spec.sinkId() + "\",topic=\"" + topic + "\"}")).hasValue(0.0);
    }
  }

  private static Optional<Double> sample(RunningWorker worker, String series) {
    return sample(worker.metrics.scrape(), series);
  }

  /** The value of one series in a Prometheus scrape. */
  static Optional<Double> sample(String scrape, String series) {
    return scrape.lines().filter(l -> l.startsWith(series + " ")).findFirst()
        .map(l -> Double.parseDouble(l.substring(series.length() + 1).trim()));
  }
}
