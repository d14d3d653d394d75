package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.floe.worker.config.OnError;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.Reasons;
import dev.floe.worker.decode.RejectedRecord;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import dev.floe.worker.testing.LocalWarehouse;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14, "nothing lost, nothing stuck": every value is stored exactly as it came or its record
 * is dead-lettered with a bounded reason; a record that only claims to be a truncate empties nothing.
 */
class ExactOrRejectedTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String TOPIC = "shop.public.readings";

  @TempDir Path dir;

  /** Debezium's JsonConverter writes NaN and the infinities of a float64 as strings. */
  private static final ConnectColumn FLOAT64 = new ConnectColumn("v", "float64", null, null, true,
      v -> Double.isFinite((Double) v) ? F.numberNode((Double) v) : F.textNode(v.toString()));

  private static final List<ConnectColumn> COLUMNS = List.of(
      ConnectColumn.int64("id").required(), ConnectColumn.string("note"), FLOAT64, ConnectColumn.decimal("amount", 12, 4));

  private final DebeziumEnvelopes readings = DebeziumEnvelopes.forTopic(TOPIC).columns(COLUMNS).key("id");
  private LocalWarehouse warehouse;
  private SinkEngine engine;
  private final List<RejectedRecord> deadLetters = new ArrayList<>();

  @BeforeEach
  void sink() {
    warehouse = new LocalWarehouse(dir);
    SinkSpec spec = new SinkSpec(new SourceSpec("localhost:9092", List.of(TOPIC), null, "floe-readings", null, null),
        new TableSpec(warehouse.spec(), "bad.readings", List.of(), List.of(), 2, WriteMode.EQUALITY_DELETES, Map.of(), Map.of()),
        null, null, OnError.DEAD_LETTER);
    engine = new SinkEngine(spec, warehouse.catalog());
  }

  @Test
  void aRecordThatOnlyClaimsToBeATruncateIsRejectedAndEmptiesNothing() {
    // given five rows in the table
    List<RawRecord> five = new ArrayList<>();
    for (long id = 1; id <= 5; id++) {
      five.add(readings.insert(0, row(id, "n" + id, 1.5)));
    }
    engine.apply(five, deadLetters::addAll);

    // when truncates arrive that do not prove they are ones: bare, without connector or table, PostgreSQL without LSN
    RawRecord bare = readings.raw(0, null, utf8("{\"op\":\"t\"}"));
    RawRecord noConnector = readings.raw(0, null, utf8("{\"op\":\"t\",\"source\":{\"table\":\"readings\",\"lsn\":99999}}"));
    RawRecord noTable = readings.raw(0, null, utf8("{\"op\":\"t\",\"source\":{\"connector\":\"postgresql\",\"lsn\":99999}}"));
    RawRecord noLsn = readings.raw(0, null, utf8("{\"op\":\"t\",\"source\":{\"connector\":\"postgresql\",\"table\":\"readings\"}}"));
    RawRecord withRow = readings.raw(0, null, utf8(
        "{\"op\":\"t\",\"after\":{\"id\":1},\"source\":{\"connector\":\"postgresql\",\"table\":\"readings\",\"lsn\":99999}}"));
    BatchResult result = engine.apply(List.of(bare, noConnector, noTable, noLsn, withRow), deadLetters::addAll);

    // then each is dead-lettered with its reason, and the five rows are all still there
    assertThat(result.truncated()).isFalse();
    assertThat(reasons(result)).containsExactly(
        Map.entry(bare.offset(), "truncate (op 't') without a 'source' block naming its connector and table: not taken as a truncate"),
        Map.entry(noConnector.offset(), "truncate (op 't') whose source block names no connector: not taken as a truncate"),
        Map.entry(noTable.offset(), "truncate (op 't') whose source block names no table: not taken as a truncate"),
        Map.entry(noLsn.offset(), "PostgreSQL truncate (op 't') without an integral source.lsn: it cannot be ordered against other partitions"),
        Map.entry(withRow.offset(), "truncate (op 't') carrying a row image in 'after': Debezium's truncates carry none"));
    assertThat(deadLetters).isEqualTo(result.rejected());
    assertThat(ids()).containsExactly(1L, 2L, 3L, 4L, 5L);

    // and a truncate as Debezium writes it still empties the table
    BatchResult real = engine.apply(List.of(readings.truncate(0)), deadLetters::addAll);
    assertThat(real.rejected()).isEmpty();
    assertThat(ids()).isEmpty();
  }

  @Test
  void aKeyRecordThatDisagreesWithItsRowIsRejected() {
    // given a key record {"id":4011} whose row says id 4012, beside a good record
    RawRecord good = readings.insert(0, row(4010, "ok", 1.0));
    RawRecord row = readings.insert(0, row(4012, "which?", 1.0));
    RawRecord disagreeing = new RawRecord(row.topic(), row.partition(), row.offset(),
        new String(row.key(), StandardCharsets.UTF_8).replace("4012", "4011").getBytes(StandardCharsets.UTF_8), row.value());

    // when applied
    BatchResult result = engine.apply(List.of(good, disagreeing), deadLetters::addAll);

    // then it is rejected, and neither 4011 nor 4012 is stored
    assertThat(reasons(result)).containsExactly(Map.entry(disagreeing.offset(),
        "key record and row image disagree on key column 'id': key 4011, row 4012"));
    assertThat(ids()).containsExactly(4010L);
  }

  @Test
  void aLoneSurrogateInTextIsRejectedNotStoredAsAQuestionMark() {
    // given x, a lone high surrogate escaped in the JSON, y, and well-formed text with a surrogate pair
    RawRecord lone = replace(readings.insert(0, row(1, "PLACE", 1.0)), "\"PLACE\"", "\"x\\ud800y\"");
    RawRecord paired = replace(readings.insert(0, row(2, "PLACE", 1.0)), "\"PLACE\"", "\"x\\ud83d\\ude00y\"");

    // when applied
    BatchResult result = engine.apply(List.of(lone, paired), deadLetters::addAll);

    // then the lone one is rejected, the pair is stored exactly
    assertThat(reasons(result)).containsExactly(Map.entry(lone.offset(),
        "column 'note' (string): not valid Unicode text: lone surrogate \\ud800 at char 1 of \"x\\ud800y\""));
    assertThat(column("note")).containsExactly(Map.entry(2L, "x\uD83D\uDE00y"));
  }

  @Test
  void aDoubleOutOfRangeIsRejectedWhileDebeziumsNaNAndInfinitiesAreKept() {
    // given 1e400 and -1e400 (no double holds them), 1e-400 (it would round to 0), and Debezium's encodings of NaN and the infinities
    RawRecord huge = replace(readings.insert(0, row(1, "a", 2.5)), "\"v\":2.5", "\"v\":1e400");
    RawRecord negHuge = replace(readings.insert(0, row(2, "a", 2.5)), "\"v\":2.5", "\"v\":-1e400");
    RawRecord tiny = replace(readings.insert(0, row(3, "a", 2.5)), "\"v\":2.5", "\"v\":1e-400");
    RawRecord nan = readings.insert(0, row(4, "a", Double.NaN));
    RawRecord inf = readings.insert(0, row(5, "a", Double.POSITIVE_INFINITY));
    RawRecord negInf = readings.insert(0, row(6, "a", Double.NEGATIVE_INFINITY));
    RawRecord max = readings.insert(0, row(7, "a", Double.MAX_VALUE));
    assertThat(new String(nan.value(), StandardCharsets.UTF_8)).contains("\"v\":\"NaN\"");

    // when applied
    BatchResult result = engine.apply(List.of(huge, negHuge, tiny, nan, inf, negInf, max), deadLetters::addAll);

    // then the out-of-range ones are rejected, the others kept exactly
    assertThat(reasons(result)).containsExactly(
        Map.entry(huge.offset(), "column 'v' (double): 1E+400 is out of range for a double"),
        Map.entry(negHuge.offset(), "column 'v' (double): -1E+400 is out of range for a double"),
        Map.entry(tiny.offset(), "column 'v' (double): 1E-400 is out of range for a double"));
    assertThat(column("v")).containsExactly(Map.entry(4L, Double.NaN), Map.entry(5L, Double.POSITIVE_INFINITY),
        Map.entry(6L, Double.NEGATIVE_INFINITY), Map.entry(7L, Double.MAX_VALUE));
  }

  @Test
  void anEmptyValueIsRejectedNotSkippedAsATombstone() {
    // given a 0-byte value (a Kafka tombstone is a null value), a real tombstone, and a good record
    RawRecord good = readings.insert(0, row(1, "a", 1.0));
    RawRecord empty = readings.raw(0, readings.insert(0, row(2, "a", 1.0)).key(), new byte[0]);
    RawRecord tombstone = readings.tombstone(0, row(3, "a", 1.0));

    // when applied
    BatchResult result = engine.apply(List.of(good, empty, tombstone), deadLetters::addAll);

    // then the empty one is rejected and counted, the tombstone skipped
    assertThat(reasons(result)).containsExactly(Map.entry(empty.offset(),
        "value is empty (0 bytes): not a change event, and not a tombstone (a tombstone's value is null)"));
    assertThat(result.tombstones()).isEqualTo(1);
    assertThat(ids()).containsExactly(1L);
  }

  @Test
  void aFiveMegabyteValueThatDoesNotFitItsColumnIsRejectedWithABoundedReason() {
    // given a 5 MB string where a double belongs, and one where a decimal belongs
    String big = "a".repeat(5 * 1024 * 1024);
    RawRecord inDouble = replace(readings.insert(0, row(1, "a", 2.5)), "\"v\":2.5", "\"v\":\"" + big + "\"");
    RawRecord good = readings.insert(0, row(2, "a", 2.5));

    // when applied
    BatchResult result = engine.apply(List.of(inDouble, good), deadLetters::addAll);

    // then the reason names the column and the problem, abbreviates the value with its length, and is bounded
    assertThat(result.rejected()).hasSize(1);
    String reason = result.rejected().get(0).reason();
    assertThat(reason).hasSizeLessThanOrEqualTo(Reasons.MAX_CHARS)
        .startsWith("column 'v' (double): \"aaaa").contains("…(5242880 chars)").endsWith("\" is not a number");
    assertThat(ids()).containsExactly(2L);
  }

  @Test
  void noPathCanBuildAnUnboundedReason() {
    // given a reason as long as any exception message could be (an incompatible schema, a merge rule)
    RawRecord r = readings.insert(0, row(1, "a", 1.0));
    String huge = "column 'note': " + "b".repeat(5_000_000) + " is too long";

    // when it becomes a rejection
    RejectedRecord rejected = new RejectedRecord(r, huge);

    // then it keeps its start and its end around the count of what was left out
    assertThat(rejected.reason()).hasSizeLessThanOrEqualTo(Reasons.MAX_CHARS)
        .startsWith("column 'note': bbb").contains("…(" + huge.length() + " chars)…").endsWith(" is too long");
    assertThat(rejected.toString()).hasSizeLessThan(Reasons.MAX_CHARS + 100);
  }

  @Test
  void aDecimalBeyondItsDeclaredPrecisionIsRejectedAtDecoding() {
    // given decimal(12,4) values: unscaled 10^20 (21 digits), and the largest that fits (12 digits)
    RawRecord tooWide = readings.insert(0, row(1, "a", 1.0, new BigDecimal(BigInteger.TEN.pow(20), 4)));
    BigDecimal widest = new BigDecimal("99999999.9999");
    RawRecord fits = readings.insert(0, row(2, "a", 1.0, widest));

    // when applied
    BatchResult result = engine.apply(List.of(tooWide, fits), deadLetters::addAll);

    // then the wide one is rejected with its reason (the batch commits, nothing loops), the other kept exactly
    assertThat(reasons(result)).containsExactly(Map.entry(tooWide.offset(),
        "column 'amount' (decimal(12, 4)): 10000000000000000.0000 has 21 digits, more than decimal(12,4) holds"));
    assertThat(result.snapshotId()).isNotNull();
    assertThat(column("amount")).containsExactly(Map.entry(2L, widest));
  }

  @Test
  void aDecimalBeyondItsPrecisionIsRejectedInJsonWithoutSchemaToo() {
    // given the table, then records without schema (read by the table's decimal(12,4)) on partition 1, whose offsets are new
    engine.apply(List.of(readings.insert(0, row(1, "a", 1.0))), deadLetters::addAll);
    DebeziumEnvelopes schemaless = DebeziumEnvelopes.forTopic(TOPIC).columns(COLUMNS).key("id").withoutSchema();
    RawRecord tooWide = schemaless.insert(1, row(2, "a", 1.0, new BigDecimal(BigInteger.TEN.pow(20), 4)));
    RawRecord asNumber = replace(schemaless.insert(1, row(3, "a", 1.0)), "\"amount\":\"MNQ=\"", "\"amount\":12345678.12345");
    RawRecord fits = schemaless.insert(1, row(4, "a", 1.0, new BigDecimal("-99999999.9999")));

    // when applied
    BatchResult result = engine.apply(List.of(tooWide, asNumber, fits), deadLetters::addAll);

    // then the one too wide and the one with too many decimal places are rejected, the other kept exactly
    assertThat(reasons(result)).containsExactly(
        Map.entry(tooWide.offset(), "column 'amount' (decimal(12, 4)): 10000000000000000.0000 has 21 digits, more than decimal(12,4) holds"),
        Map.entry(asNumber.offset(), "column 'amount' (decimal(12, 4)): 12345678.12345 has more than 4 decimal places"));
    assertThat(column("amount")).containsExactly(Map.entry(1L, new BigDecimal("1.2500")), Map.entry(4L, new BigDecimal("-99999999.9999")));
  }

  private static Map<String, Object> row(long id, String note, double v) {
    return row(id, note, v, new BigDecimal("1.2500"));
  }

  private static Map<String, Object> row(long id, String note, double v, BigDecimal amount) {
    Map<String, Object> row = new HashMap<>();
    row.put("id", id);
    row.put("note", note);
    row.put("v", v);
    row.put("amount", amount);
    return row;
  }

  private static RawRecord replace(RawRecord r, String from, String to) {
    String v = new String(r.value(), StandardCharsets.UTF_8);
    assertThat(v).contains(from);
    return new RawRecord(r.topic(), r.partition(), r.offset(), r.key(), v.replace(from, to).getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<Map.Entry<Long, String>> reasons(BatchResult result) {
    return result.rejected().stream().map(r -> Map.entry(r.record().offset(), r.reason())).toList();
  }

  private List<Long> ids() {
    return LocalWarehouse.rows(engine.table()).stream().map(r -> (Long) r.get("id")).sorted().toList();
  }

  /** One column of every row, by id in order. */
  private List<Map.Entry<Long, Object>> column(String name) {
    Map<Long, Object> out = new TreeMap<>();
    LocalWarehouse.rows(engine.table()).forEach(r -> out.put((Long) r.get("id"), r.get(name)));
    return List.copyOf(out.entrySet());
  }
}
