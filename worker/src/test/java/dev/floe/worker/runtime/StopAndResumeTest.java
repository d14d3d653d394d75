package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.cli.Floe;
import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.commit.SinkOffsets;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CatalogType;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.engine.TableStoppedException;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What stops a single-table sink, and how an operator resumes it: an incompatible schema change
 * stops it with the good records committed and the offending record dead-lettered once however
 * often it restarts; the table evolved by hand, or the record skipped with {@code floe skip}, lets
 * it go on, losing and doubling nothing. A catalog that cannot be written stops it with the cause.
 */
class StopAndResumeTest {
  @TempDir Path dir;

  private final List<ConnectColumn> qtyAsText = textQty();

  @Test
  void anIncompatibleChangeStopsTheSinkOnceAndTheTableEvolvedByHandResumesIt() {
    String topic = TestKafka.topic("orders", 2);
    String dlq = TestKafka.topic("dlq", 1);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = sink(topic, warehouse.spec(), dlq);
    DebeziumEnvelopes orders = DebeziumEnvelopes.forTopic(topic).columns(OrdersTable.columns(false)).key("id");
    // given partition 0: two good rows, then the source turned qty into text; partition 1: good rows
    TestKafka.produce(List.of(orders.insert(0, OrdersTable.row(1, 7)), orders.insert(0, OrdersTable.row(2, 7)), orders.insert(1, OrdersTable.row(11, 7)),
        orders.insert(1, OrdersTable.row(12, 7))));
    orders.columns(qtyAsText);
    RawRecord offending = orders.insert(0, OrdersTable.row(3, "three"));
    TestKafka.produce(List.of(offending, orders.insert(0, OrdersTable.row(4, "four"))));

    // when the sink meets it, and is restarted
    stopsAt(spec, warehouse, offending);
    stopsAt(spec, warehouse, offending);

    // then the good records are in, nothing at or after the offending one in its partition, and it is dead-lettered once
    Table table = warehouse.catalog().loadTable(TableIdentifier.parse(spec.table().name()));
    assertThat(ids(table)).containsExactlyInAnyOrder(1L, 2L, 11L, 12L);
    assertThat(deadLettered(dlq)).containsExactly(offending.offset());

    // when the operator evolves the table by hand (Iceberg cannot change int to string: keep the old column aside)
    table.updateSchema().renameColumn("qty", "qty_int").commit();
    table.updateSchema().addColumn("qty", Types.StringType.get()).commit();
    TestKafka.produce(List.of(orders.insert(1, OrdersTable.row(13, "thirteen"))));
    RunningWorker resumed = RunningWorker.start(spec, warehouse);
    await().atMost(Duration.ofSeconds(40)).until(() -> next(warehouse, spec).equals(Map.of(tp(topic, 0), 4L, tp(topic, 1), 3L)));
    resumed.stop();

    // then every record is applied exactly once, the stop point is gone, and the dead-letter topic still holds one copy
    Map<Long, Map<String, Object>> rows = LocalWarehouse.rows(table).stream().collect(Collectors.toMap(r -> (Long) r.get("id"), r -> r));
    assertThat(rows.keySet()).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 11L, 12L, 13L);
    assertThat(rows.get(3L).get("qty")).isEqualTo("three");
    assertThat(rows.get(1L).get("qty_int")).isEqualTo(7);
    assertThat(OffsetLedger.read(table, spec.sinkId()).stops()).isEmpty();
    assertThat(deadLettered(dlq)).containsExactly(offending.offset());
  }

  @Test
  void anIncompatibleRecordSkippedWithFloeSkipResumesTheSinkAndTheSkipIsRecorded() throws Exception {
    String topic = TestKafka.topic("orders", 2);
    String dlq = TestKafka.topic("dlq", 1);
    LocalWarehouse warehouse = new LocalWarehouse(dir);
    SinkSpec spec = sink(topic, warehouse.spec(), dlq);
    DebeziumEnvelopes orders = DebeziumEnvelopes.forTopic(topic).columns(OrdersTable.columns(false)).key("id");
    // given one record of a schema change the source took back (a mistaken ALTER, reverted)
    TestKafka.produce(List.of(orders.insert(0, OrdersTable.row(1, 7)), orders.insert(1, OrdersTable.row(11, 7)), orders.insert(0, OrdersTable.row(2, 7))));
    orders.columns(qtyAsText);
    RawRecord offending = orders.insert(0, OrdersTable.row(3, "three"));
    orders.columns(OrdersTable.columns(false));
    TestKafka.produce(List.of(offending, orders.insert(0, OrdersTable.row(4, 7)), orders.insert(1, OrdersTable.row(12, 7))));
    stopsAt(spec, warehouse, offending);
    stopsAt(spec, warehouse, offending);

    // when the operator skips it
    Path config = dir.resolve("sink.json");
    Files.writeString(config, new ObjectMapper().writeValueAsString(spec));
    String skipped = cli("skip", "-c", config.toString(), "--topic", topic, "--partition", "0", "--offset", String.valueOf(offending.offset()));
    assertThat(skipped).contains("skipped " + topic + "-0@" + offending.offset(), "resumes at offset " + (offending.offset() + 1));
    RunningWorker resumed = RunningWorker.start(spec, warehouse);
    await().atMost(Duration.ofSeconds(40)).until(() -> next(warehouse, spec).equals(Map.of(tp(topic, 0), 4L, tp(topic, 1), 2L)));
    resumed.stop();

    // then the rest is applied once, the skipped record is not, the skip shows in floe offsets, and the DLQ holds one copy
    Table table = warehouse.catalog().loadTable(TableIdentifier.parse(spec.table().name()));
    assertThat(ids(table)).containsExactlyInAnyOrder(1L, 2L, 4L, 11L, 12L);
    assertThat(deadLettered(dlq)).containsExactly(offending.offset());
    assertThat(cli("offsets", "-c", config.toString()))
        .contains("skipped " + topic + "-0 offset " + offending.offset() + ": skipped by the operator: table " + spec.table().name()
            + ": column 'qty' changed type from int to string");
  }

  @Test
  void aCatalogThatCannotBeWrittenStopsTheSinkWithTheCauseInsteadOfRetryingForever() {
    String topic = TestKafka.topic("orders", 1);
    String dlq = TestKafka.topic("dlq", 1);
    // a warehouse under /proc: nothing can be created there, whoever runs the test (root included)
    CatalogSpec catalog = new CatalogSpec(CatalogType.JDBC, "jdbc:sqlite:" + dir.resolve("catalog.db"),
        "/proc/floe-" + UUID.randomUUID(), null, null, Map.of());
    SinkSpec spec = sink(topic, catalog, dlq);
    DebeziumEnvelopes orders = DebeziumEnvelopes.forTopic(topic).columns(OrdersTable.columns(false)).key("id");
    TestKafka.produce(List.of(orders.insert(0, OrdersTable.row(1, 7))));

    RunningWorker worker = RunningWorker.start(spec, CatalogLoader.load("floe", catalog, SecretResolver.fromEnvironment()));
    Throwable failure = worker.awaitFailure(Duration.ofSeconds(40));

    assertThat(failure).as("the worker stopped by itself").isInstanceOf(PermanentFailureException.class)
        .hasMessageContaining("cannot be written, and retrying will not change that")
        .hasMessageContaining("Mkdirs failed to create /proc/floe-");
    assertThat(worker.metrics.commitFailures()).as("not retried as an outage").isZero();
  }

  /** Runs a worker until it stops by itself, at the offending record. */
  private static void stopsAt(SinkSpec spec, LocalWarehouse warehouse, RawRecord offending) {
    Throwable failure = RunningWorker.start(spec, warehouse).awaitFailure(Duration.ofSeconds(40));
    assertThat(failure).as("the worker stopped by itself").isInstanceOf(TableStoppedException.class)
        .hasMessageContaining("column 'qty' changed type from int to string");
    SinkOffsets held = OffsetLedger.read(warehouse.catalog().loadTable(TableIdentifier.parse(spec.table().name())), spec.sinkId());
    assertThat(held.nextOffset(offending.topicPartition())).isEqualTo(offending.offset());
    assertThat(held.stoppedAt(offending.topicPartition(), offending.offset())).isTrue();
  }

  /** The source offsets of the records in the dead-letter topic (waiting long enough for a second copy to show). */
  private static List<Long> deadLettered(String dlq) {
    return TestKafka.readAll(dlq, 2, Duration.ofSeconds(4)).stream()
        .map(r -> Long.parseLong(header(r, KafkaDeadLetters.OFFSET))).toList();
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    return new String(r.headers().lastHeader(key).value(), StandardCharsets.UTF_8);
  }

  private static Map<TopicPartition, Long> next(LocalWarehouse warehouse, SinkSpec spec) {
    return OffsetLedger.read(warehouse.catalog().loadTable(TableIdentifier.parse(spec.table().name())), spec.sinkId()).next();
  }

  private static List<Long> ids(Table table) {
    return LocalWarehouse.rows(table).stream().map(r -> (Long) r.get("id")).toList();
  }

  private static TopicPartition tp(String topic, int partition) {
    return new TopicPartition(topic, partition);
  }

  private static String cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      assertThat(new CommandLine(new Floe()).execute(args)).as(String.join(" ", args)).isZero();
    } finally {
      System.setOut(stdout);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static List<ConnectColumn> textQty() {
    List<ConnectColumn> columns = new ArrayList<>(OrdersTable.columns(false));
    columns.set(2, ConnectColumn.string("qty"));
    return columns;
  }


  /** A single-table sink without merge rules (a sum over a column that becomes text cannot be). */
  private static SinkSpec sink(String topic, CatalogSpec catalog, String dlq) {
    return new SinkSpec(
        new SourceSpec(TestKafka.bootstrap(), List.of(topic), null, "floe-stop-" + UUID.randomUUID().toString().substring(0, 6), null, Map.of()),
        new TableSpec(catalog, "stop." + topic.replace('.', '_').replace('-', '_'), List.of(), List.of(), 2, null, Map.of(), Map.of()),
        new CommitSpec("200ms", 300, null), new DeadLetterSpec(dlq), null);
  }
}
