package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.bench.OrdersWorkload;
import dev.floe.worker.decode.AvroWire.Format;
import dev.floe.worker.model.OrdersModel;
import dev.floe.worker.model.OrdersScripts;
import dev.floe.worker.model.OrdersSource;
import dev.floe.worker.model.Script;
import dev.floe.worker.model.Step;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.Arbitrary;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The decoder contract across wire formats: every envelope the JSON tests use (the records
 * Debezium 3.6.1 wrote from PostgreSQL 15, the benchmark's orders stream, and the model's
 * generated histories with key moves, TOAST placeholders, truncates and a schema change), rewritten
 * as Debezium's Avro converter writes it in both wire formats, decodes to exactly the events,
 * skips and rejections the JSON decoder makes of the original: op, key, columns with their Iceberg
 * types, optionality and defaults, values, LSN and key-move keys.
 */
class AvroMatchesJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest
  @EnumSource(Format.class)
  void everyCapturedDebeziumRecordDecodesAlikeInAvro(Format format) throws IOException {
    List<RawRecord> captured = new ArrayList<>(captured("/debezium/pg15-debezium-3.6.1.jsonl"));
    captured.addAll(captured("/debezium/pg15-debezium-3.6.1-key-update.jsonl"));

    assertDecodeAlike(captured, format, List.of());
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void theOrdersStreamDecodesAlikeInAvro(Format format) {
    assertDecodeAlike(new OrdersWorkload(500).nextBatch(3_000), format, List.of());
  }

  @Property(tries = 40)
  void generatedHistoriesDecodeAlikeInAvro(@ForAll("scripts") Script script, @ForAll Format format) {
    OrdersModel model = new OrdersModel();
    OrdersSource source = new OrdersSource();
    List<RawRecord> records = new ArrayList<>();
    for (List<Step> batch : script.batches()) {
      records.addAll(source.records(batch, model));
    }

    int compared = decodeAlike(records, format, List.of("id"));

    // A script may hold no change at all (a schema change, a key moved onto itself on a missing row):
    // such a try compares nothing, so most tries must compare events instead of each one.
    Statistics.label("events compared").collect(compared > 0);
    Statistics.label("events compared").coverage(c -> c.check(true).percentage(p -> p >= 50));
  }

  @org.junit.jupiter.api.Test
  void apicuriosJsonEncodingDecodesAsItsBinaryEncoding() throws IOException {
    AvroWire wire = new AvroWire();
    AvroChangeDecoder avro = new AvroChangeDecoder(List.of(), wire.schemas());
    int compared = 0;
    for (RawRecord json : captured("/debezium/pg15-debezium-3.6.1.jsonl")) {
      RawRecord binary = wire.rewrite(json, Format.APICURIO_HEADERS);
      if (binary.value() == null) {
        continue;
      }
      org.apache.avro.Schema schema = wire.writerSchema(dev.floe.worker.decode.avro.SchemaId.globalId(
          java.nio.ByteBuffer.wrap(binary.headers().get(dev.floe.worker.decode.avro.WireFormat.VALUE_GLOBAL_ID)).getLong()));
      Object datum = new org.apache.avro.generic.GenericDatumReader<>(schema)
          .read(null, org.apache.avro.io.DecoderFactory.get().binaryDecoder(binary.value(), null));
      java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
      org.apache.avro.io.JsonEncoder encoder = org.apache.avro.io.EncoderFactory.get().jsonEncoder(schema, text);
      new org.apache.avro.generic.GenericDatumWriter<>(schema).write(datum, encoder);
      encoder.flush();
      Map<String, byte[]> headers = new HashMap<>(binary.headers());
      headers.put(dev.floe.worker.decode.avro.WireFormat.VALUE_ENCODING, "JSON".getBytes(StandardCharsets.UTF_8));
      RawRecord jsonEncoded = new RawRecord(binary.topic(), binary.partition(), binary.offset(), binary.key(), text.toByteArray(), headers);

      assertThat(outcome(avro.decode(jsonEncoded, null))).isEqualTo(outcome(avro.decode(binary, null)));
      compared++;
    }
    assertThat(compared).isPositive();
  }

  @Provide
  Arbitrary<Script> scripts() {
    return OrdersScripts.scripts();
  }

  private static void assertDecodeAlike(List<RawRecord> jsonRecords, Format format, List<String> primaryKey) {
    assertThat(decodeAlike(jsonRecords, format, primaryKey)).as("events compared").isPositive();
  }

  /** Decodes each record from JSON and from Avro, checks the outcomes are equal, and counts the events among them. */
  private static int decodeAlike(List<RawRecord> jsonRecords, Format format, List<String> primaryKey) {
    AvroWire wire = new AvroWire();
    DebeziumDecoder json = new DebeziumDecoder(primaryKey);
    AvroChangeDecoder avro = new AvroChangeDecoder(primaryKey, wire.schemas());
    int events = 0;
    for (RawRecord r : jsonRecords) {
      String expected = outcome(json.decode(r, null));
      RawRecord rewritten = wire.rewrite(r, format);

      String actual = outcome(avro.decode(rewritten, null));

      assertThat(actual).as("%s in Avro (%s) of %s", r, format, r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8))
          .isEqualTo(expected);
      events += expected.startsWith("event") ? 1 : 0;
    }
    return events;
  }

  /** Everything a decision carries but the record's bytes and a rejection's wording. */
  static String outcome(Decoded d) {
    if (d instanceof ChangeEvent c) {
      return "event " + c.op() + " key=" + c.key() + " values=" + Arrays.deepToString(c.values()) + " lsn=" + c.lsn()
          + " fields=" + (c.schema() == null ? null : c.schema().fields().stream()
              .map(f -> f.name() + ":" + f.type() + (f.optional() ? "?" : "") + (f.defaultValue() == null ? "" : "=" + f.defaultValue()))
              .toList())
          + " previousKey=" + c.previousKey() + " nextKey=" + c.nextKey();
    }
    return d instanceof Decoded.Skip s ? "skip " + s.why() : "rejected";
  }

  static List<RawRecord> captured(String resource) throws IOException {
    List<RawRecord> out = new ArrayList<>();
    try (InputStream in = AvroMatchesJsonTest.class.getResourceAsStream(resource)) {
      long offset = 0;
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        JsonNode n = JSON.readTree(line);
        Map<String, byte[]> headers = new HashMap<>();
        n.path("headers").fields().forEachRemaining(h -> headers.put(h.getKey(), h.getValue().asText().getBytes(StandardCharsets.UTF_8)));
        out.add(new RawRecord(n.get("topic").asText(), 0, offset++, bytes(n.get("key")), bytes(n.get("value")), headers));
      }
    }
    return out;
  }

  private static byte[] bytes(JsonNode n) {
    return n == null || n.isNull() ? null : n.toString().getBytes(StandardCharsets.UTF_8);
  }
}
