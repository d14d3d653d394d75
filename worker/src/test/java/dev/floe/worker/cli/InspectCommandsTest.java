package dev.floe.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.RejectedRecord;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.OrdersTable;
import dev.floe.worker.model.Step;
import dev.floe.worker.runtime.KafkaDeadLetters;
import dev.floe.worker.testing.LocalWarehouse;
import dev.floe.worker.testing.TestKafka;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.iceberg.Table;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code floe status}, {@code floe show} and {@code floe dead-letters} against a real broker and a real table. */
class InspectCommandsTest {
  @TempDir Path dir;
  LocalWarehouse warehouse;
  String topic;
  String dlq;
  SinkSpec spec;
  List<RawRecord> produced;
  int applied;

  @BeforeEach
  void givenASinkFiveRecordsBehindItsTopic() throws Exception {
    warehouse = new LocalWarehouse(dir.resolve("lake"));
    topic = TestKafka.topic("inspect", OrdersTable.PARTITIONS);
    dlq = TestKafka.topic("inspect-dlq", 1);
    spec = sink(TestKafka.bootstrap());
    List<Step> steps = new ArrayList<>();
    LongStream.rangeClosed(1, 30).forEach(id -> steps.add(new Step.Upsert(id, Map.of("qty", (int) id))));
    LongStream.rangeClosed(1, 30).filter(id -> id % 3 == 0).forEach(id -> steps.add(new Step.Upsert(id, Map.of("qty", 1))));
    List.of(4L, 8L, 15L).forEach(id -> steps.add(new Step.Delete(id)));
    produced = new OrdersSource(topic).records(steps, new OrdersModel());
    TestKafka.produce(produced);
    applied = produced.size() - 5;
    // two commits: the inserts, then updates and deletes of rows the first one wrote
    new SinkEngine(spec, warehouse.catalog()).apply(produced.subList(0, 30), rejected -> {});
    new SinkEngine(spec, warehouse.catalog()).apply(produced.subList(30, applied), rejected -> {});
  }

  @Test
  void statusShowsTheLagPerPartitionTheFreshnessAndWhatTheTableCostsReaders() throws Exception {
    // when
    Run run = floe("status", "-c", config(spec).toString(), "--json");

    // then
    assertThat(run.exit).as(run.err).isZero();
    JsonNode status = new ObjectMapper().readTree(run.out);
    assertThat(status.get("lag").asLong()).isEqualTo(5);
    JsonNode table = status.get("tables").get(0);
    Table iceberg = new SinkEngine(spec, warehouse.catalog()).table();
    assertThat(table.get("snapshotId").asLong()).isEqualTo(iceberg.currentSnapshot().snapshotId());
    assertThat(table.get("secondsSinceCommit").asLong()).isBetween(0L, 60L);
    long sum = 0;
    for (JsonNode p : table.get("partitions")) {
      assertThat(p.get("tableOffset").asLong() + p.get("lag").asLong()).isEqualTo(p.get("endOffset").asLong());
      sum += p.get("lag").asLong();
    }
    assertThat(sum).isEqualTo(5);
    JsonNode facts = table.get("facts");
    long live = LocalWarehouse.rows(iceberg).size();
    assertThat(facts.get("liveRows").asLong()).isEqualTo(live);
    assertThat(facts.get("dataFileRows").asLong()).isGreaterThan(live); // updates and deletes left rows readers discard
    assertThat(facts.get("deadRowFraction").asDouble()).isCloseTo(1 - live / facts.get("dataFileRows").asDouble(), org.assertj.core.data.Offset.offset(1e-9));

    Run text = floe("status", "-c", config(spec).toString());
    assertThat(text.out).contains("sink floe-inspect: lag 5, 1 table(s)", "partition", "live rows " + live);
  }

  @Test
  void statusWithKafkaUnreachableSaysTheLagIsUnknownAndStillShowsTheTable() throws Exception {
    Run run = floe("status", "-c", config(sink("127.0.0.1:1")).toString(), "--timeout", "2");

    assertThat(run.exit).as(run.err).isZero();
    assertThat(run.out).contains("lag unknown", "cannot read the topics' offsets from 127.0.0.1:1", "live rows");
  }

  @Test
  void showPrintsTheCurrentRowsFilteredAndLimited() throws Exception {
    String cfg = config(spec).toString();

    Run one = floe("show", "-c", cfg, "--where", "id=6");
    assertThat(one.exit).as(one.err).isZero();
    assertThat(one.out).contains("1 of 1 row(s)").containsPattern("(?m)^\\s+6\\s");

    Run deleted = floe("show", "-c", cfg, "--where", "id=4");
    assertThat(deleted.out).contains("0 of 0 row(s)");

    Run limited = floe("show", "-c", cfg, "--limit", "3");
    long live = LocalWarehouse.rows(new SinkEngine(spec, warehouse.catalog()).table()).size();
    assertThat(limited.out).contains("3 of " + live + " row(s)");

    Run typo = floe("show", "-c", cfg, "--where", "idd=6");
    assertThat(typo.exit).isEqualTo(2);
    assertThat(typo.err).contains("has no column 'idd'", "id");
  }

  @Test
  void deadLettersAreListedWithTheirReasonsAndEachIsReplayedExactlyOnce() throws Exception {
    // given two dead letters
    String cfg = config(spec).toString();
    String target = TestKafka.topic("replayed", 1);
    deadLetter(produced.get(0), "value is not JSON");
    deadLetter(produced.get(1), "decimal(12,4) cannot hold 100000000000000000000");

    Run list = floe("dead-letters", "-c", cfg);
    assertThat(list.exit).as(list.err).isZero();
    assertThat(list.out).contains("reason: value is not JSON", "reason: decimal(12,4)", "2 dead letter(s), 2 not replayed yet",
        "from " + topic + "-" + produced.get(0).partition() + "@" + produced.get(0).offset());

    // when replayed, twice, with a third arriving in between
    Run replay = floe("dead-letters", "-c", cfg, "--replay", "--to", target);
    assertThat(replay.out).as(replay.err).contains("replayed 2 dead letter(s) to " + target);
    assertThat(floe("dead-letters", "-c", cfg, "--replay", "--to", target).out).contains("nothing to replay");
    deadLetter(produced.get(2), "value is not JSON");
    assertThat(floe("dead-letters", "-c", cfg, "--replay", "--to", target).out).contains("replayed 1 dead letter(s)");

    // then the target holds each exactly once, as it was, with where it came from
    List<ConsumerRecord<byte[], byte[]>> out = TestKafka.readAll(target, 3, Duration.ofSeconds(20));
    assertThat(out).hasSize(3);
    assertThat(out.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)))
        .containsExactly(utf8(produced.get(0).value()), utf8(produced.get(1).value()), utf8(produced.get(2).value()));
    assertThat(out).allSatisfy(r -> {
      assertThat(r.headers().lastHeader(DeadLettersCommand.REPLAYED_FROM)).isNotNull();
      assertThat(r.headers().lastHeader(KafkaDeadLetters.REASON)).isNull();
    });
    assertThat(floe("dead-letters", "-c", cfg).out).contains("3 dead letter(s), 0 not replayed yet");
  }

  private void deadLetter(RawRecord r, String reason) {
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers", TestKafka.bootstrap()),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      new KafkaDeadLetters(p, dlq).send(List.of(new RejectedRecord(r, reason)));
    }
  }

  private SinkSpec sink(String bootstrap) {
    return new SinkSpec(new SourceSpec(bootstrap, List.of(topic), null, "floe-inspect", null, Map.of()),
        new TableSpec(warehouse.spec(), "inspect.orders", List.of(), List.of(), 2, null, OrdersTable.RULES, Map.of()),
        new CommitSpec("1s", 1000, null), new DeadLetterSpec(dlq), null);
  }

  private Path config(SinkSpec s) throws Exception {
    Path file = Files.createTempFile(dir, "sink", ".json");
    Files.writeString(file, new ObjectMapper().writeValueAsString(s));
    return file;
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  record Run(int exit, String out, String err) {}

  static Run floe(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new Floe()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
    cli.setExecutionExceptionHandler(Floe::handle);
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }
}
