package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.floe.worker.catalog.SinkTables;
import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.ConfigException;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SinkSpecValidator;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableNameTemplate;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.maintain.CompactionReport;
import dev.floe.worker.maintain.Compactor;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.ScriptPlayer;
import dev.floe.worker.model.Step;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One sink mirrors many source tables: a topic pattern and a table name template route each topic to its own table. */
class TableRoutingTest {
  @TempDir Path dir;

  @Test
  void aTemplateResolvesSchemaAndTableFromDebeziumsTopicName() {
    assertThat(TableNameTemplate.resolve("lake.{schema}_{table}", "shop.public.orders")).isEqualTo("lake.public_orders");
    assertThat(TableNameTemplate.resolve("{schema}.{table}", "prod.shop.sales.line-items")).isEqualTo("sales.line_items");
    assertThat(TableNameTemplate.resolve("raw.{topic}", "shop.public.orders")).isEqualTo("raw.shop_public_orders");
    assertThat(TableNameTemplate.names("lake.{schema}_{table}").matcher("lake.public_orders").matches()).isTrue();
    assertThat(TableNameTemplate.names("lake.{schema}_{table}").matcher("other.public_orders").matches()).isFalse();
    assertThatThrownBy(() -> TableNameTemplate.resolve("lake.{table}", "orders"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("cannot route topic 'orders'");
  }

  @Test
  void settingsThatNameColumnsOfOneTableAreRefusedWithATemplate() {
    SinkSpec routed = sink("db\\..*", new LocalWarehouse(dir), "lake.{schema}_{table}");
    SinkSpec spec = new SinkSpec(routed.source(), routed.table(), routed.commit(), new DeadLetterSpec("floe.dlq.mirror"), null);
    SinkSpec keyed = new SinkSpec(spec.source(), new TableSpec(spec.table().catalog(), spec.table().name(), List.of("id"),
        List.of("region"), 2, null, Map.of(), Map.of()), spec.commit(), spec.deadLetter(), null);

    assertThat(SinkSpecValidator.problems(spec)).isEmpty();
    assertThat(SinkSpecValidator.problems(keyed)).extracting(p -> p.field()).containsExactly("table.primaryKey", "table.partitionBy");
  }

  @Test
  void aTopicPatternAndATableTemplateKeepEachSourceTableInItsOwnIcebergTable() {
    String db = "db" + UUID.randomUUID().toString().substring(0, 8);
    String salesTopic = TestKafka.topicNamed(db + ".sales.orders", OrdersTable.PARTITIONS);
    String billingTopic = TestKafka.topicNamed(db + ".billing.orders", OrdersTable.PARTITIONS);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = sink(db + "\\..*", warehouse, "mirror.{schema}_{table}");
    OrdersModel salesModel = new OrdersModel();
    OrdersModel billingModel = new OrdersModel();
    OrdersSource sales = new OrdersSource(salesTopic);
    OrdersSource billing = new OrdersSource(billingTopic);
    // no truncates: with merge rules they need one partition (see README); the engine's tests cover them
    List<Step> salesSteps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(600).sample();
    List<Step> billingSteps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(400).sample();

    // given both tables' changes, interleaved in time
    for (int i = 0; i < 4; i++) {
      TestKafka.produce(sales.records(salesSteps.subList(i * 150, (i + 1) * 150), salesModel));
      TestKafka.produce(billing.records(billingSteps.subList(i * 100, (i + 1) * 100), billingModel));
    }
    // when one sink runs
    RunningWorker worker = RunningWorker.start(spec, warehouse);
    Catalog catalog = warehouse.catalog();
    TableIdentifier salesTable = TableIdentifier.parse("mirror.sales_orders");
    TableIdentifier billingTable = TableIdentifier.parse("mirror.billing_orders");
    await().atMost(Duration.ofSeconds(90)).until(() -> holds(catalog, salesTable, spec, sales) && holds(catalog, billingTable, spec, billing));
    worker.stop();

    // then each table equals its own source and holds only its own topic's offsets
    assertThat(ScriptPlayer.actual(catalog.loadTable(salesTable))).isEqualTo(salesModel.expected());
    assertThat(ScriptPlayer.actual(catalog.loadTable(billingTable))).isEqualTo(billingModel.expected());
    assertThat(worker.metrics.scrape()).as("freshness per table")
        .contains("floe_last_commit_time_seconds{sink=\"" + spec.sinkId() + "\",table=\"mirror.sales_orders\"}")
        .contains("floe_last_commit_time_seconds{sink=\"" + spec.sinkId() + "\",table=\"mirror.billing_orders\"}");
    assertThat(OffsetLedger.read(catalog.loadTable(salesTable), spec.sinkId()).next()).isEqualTo(sales.nextOffsets());
    assertThat(OffsetLedger.read(catalog.loadTable(billingTable), spec.sinkId()).next()).isEqualTo(billing.nextOffsets());
    // and the commands that act on a sink's tables afterwards find exactly these two
    assertThat(SinkTables.existing(catalog, spec)).containsExactly(billingTable, salesTable);
    List<CompactionReport> reports = new ArrayList<>();
    for (TableIdentifier id : SinkTables.existing(catalog, spec)) {
      CompactionReport report = new Compactor(catalog.loadTable(id), spec.sinkId(), spec.compaction()).run();
      assertThat(report.exitCode()).as(report.toText()).isZero();
      reports.add(report);
    }
    CompactionReport total = CompactionReport.total(spec.table().name(), reports);
    assertThat(total.before().dataFiles()).isEqualTo(reports.get(0).before().dataFiles() + reports.get(1).before().dataFiles());
    assertThat(total.after().bytes()).isEqualTo(reports.get(0).after().bytes() + reports.get(1).after().bytes());
    assertThat(total.exitCode()).isZero();
    assertThat(ScriptPlayer.actual(catalog.loadTable(salesTable))).isEqualTo(salesModel.expected());
  }

  @Test
  void aTableThatMeetsASchemaChangeItCannotFollowStopsAloneWhileTheOthersGoOn() {
    String db = "db" + UUID.randomUUID().toString().substring(0, 8);
    String salesTopic = TestKafka.topicNamed(db + ".sales.orders", OrdersTable.PARTITIONS);
    String stockTopic = TestKafka.topicNamed(db + ".stock.orders", 1);
    String dlq = TestKafka.topic("dlq", 1);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec routed = sink(db + "\\..*", warehouse, "mirror.{schema}_{table}");
    SinkSpec spec = new SinkSpec(routed.source(), routed.table(), routed.commit(), new DeadLetterSpec(dlq), null);
    OrdersModel salesModel = new OrdersModel();
    OrdersSource sales = new OrdersSource(salesTopic);
    List<Step> salesSteps = OrdersScripts.steps().filter(s -> !(s instanceof Step.Truncate)).list().ofSize(400).sample();
    DebeziumEnvelopes stock = DebeziumEnvelopes.forTopic(stockTopic).columns(OrdersTable.columns(false)).key("id");
    RawRecord first = stock.insert(0, OrdersTable.row(1, 7));
    List<ConnectColumn> qtyAsText = new ArrayList<>(OrdersTable.columns(false));
    qtyAsText.set(qtyAsText.indexOf(qtyAsText.stream().filter(c -> c.name().equals("qty")).findFirst().orElseThrow()), ConnectColumn.string("qty"));
    stock.columns(qtyAsText); // the source changed qty from int to text: Iceberg cannot follow
    RawRecord offending = stock.insert(0, OrdersTable.row(2, "eight"));

    // given a good table and one whose source changes a column's type
    TestKafka.produce(sales.records(salesSteps.subList(0, 200), salesModel));
    TestKafka.produce(List.of(first));
    RunningWorker worker = RunningWorker.start(spec, warehouse);
    SinkRunner runner = worker.runner;
    Catalog catalog = warehouse.catalog();
    TableIdentifier stockTable = TableIdentifier.parse("mirror.stock_orders");
    await().atMost(Duration.ofSeconds(60)).until(() -> catalog.tableExists(stockTable));
    // when the change arrives, and the good table's changes keep coming
    TestKafka.produce(List.of(offending));
    await().atMost(Duration.ofSeconds(60)).until(() -> !runner.stoppedTables().isEmpty());
    TestKafka.produce(sales.records(salesSteps.subList(200, 400), salesModel));
    TableIdentifier salesTable = TableIdentifier.parse("mirror.sales_orders");
    await().atMost(Duration.ofSeconds(60)).until(() -> holds(catalog, salesTable, spec, sales));

    // then the worker still runs, the stopped table is named with its reason and keeps its rows,
    // the offending record is in the dead-letter topic, and the good table equals its source
    assertThat(runner.isRunning()).isTrue();
    assertThat(runner.stoppedTables()).containsOnlyKeys("mirror.stock_orders");
    assertThat(runner.stoppedTables().get("mirror.stock_orders")).contains("column 'qty' changed type from int to string");
    assertThat(worker.metrics.scrape()).contains("floe_table_stopped{sink=\"" + spec.sinkId() + "\",table=\"mirror.stock_orders\"} 1.0");
    assertThat(LocalWarehouse.rows(catalog.loadTable(stockTable))).hasSize(1);
    assertThat(TestKafka.readAll(dlq, 1, Duration.ofSeconds(30))).hasSize(1);
    assertThat(ScriptPlayer.actual(catalog.loadTable(salesTable))).isEqualTo(salesModel.expected());
    // and while paused its partition reports true lag: the offending record and what came after it, not the consumer's position
    TestKafka.produce(List.of(stock.insert(0, OrdersTable.row(3, "nine"))));
    String stockLag = "floe_lag{partition=\"0\",sink=\"" + spec.sinkId() + "\",topic=\"" + stockTopic + "\"}";
    await().atMost(Duration.ofSeconds(30)).until(() -> MetricsFromStartTest.sample(worker.metrics.scrape(), stockLag).orElse(-1.0) == 2.0);
    assertThat(OffsetLedger.read(catalog.loadTable(stockTable), spec.sinkId()).stoppedAt(offending.topicPartition(), offending.offset())).isTrue();
    worker.stop();
  }


  private static boolean holds(Catalog catalog, TableIdentifier id, SinkSpec spec, OrdersSource source) {
    if (!catalog.tableExists(id)) {
      return false;
    }
    Table table = catalog.loadTable(id);
    return OffsetLedger.read(table, spec.sinkId()).next().equals(source.nextOffsets());
  }

  private static SinkSpec sink(String topicPattern, LocalWarehouse warehouse, String tableTemplate) {
    return new SinkSpec(
        new SourceSpec(TestKafka.bootstrap(), List.of(), topicPattern, "floe-mirror-" + UUID.randomUUID().toString().substring(0, 6), null, Map.of()),
        new TableSpec(warehouse.spec(), tableTemplate, List.of(), List.of(), 2, null, OrdersTable.RULES, Map.of()),
        new CommitSpec("300ms", 400, null), null, null);
  }
}
