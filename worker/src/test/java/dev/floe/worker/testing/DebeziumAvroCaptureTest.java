package dev.floe.worker.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.testing.AvroSamples.Schemas;
import dev.floe.worker.testing.DebeziumAvroCapture.Captured;
import dev.floe.worker.testing.DebeziumAvroCapture.WireFormat;
import io.apicurio.registry.rest.client.RegistryClient;
import io.apicurio.registry.rest.client.RegistryClientFactory;
import io.apicurio.registry.rest.v2.beans.IfExists;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * Real PostgreSQL changes through Debezium's embedded connector and Apicurio's AvroConverter, in
 * both wire formats, through the real Kafka broker: the every-mapped-type table of
 * PostgresRoundTripTest (snapshot, insert, update, delete), a TOAST table (unchanged placeholder,
 * primary-key move, truncate) and an ADD COLUMN with a default. The records come back from Kafka
 * byte for byte, and hold what {@link AvroSamples#assertCaptureHolds} says. With
 * {@code -Dfloe.capture.write=DIR} they are saved as the samples in {@link AvroSamples#DIR}.
 */
class DebeziumAvroCaptureTest {
  private static final int EVENTS = 2 + 4 + 6 + 1 + 1;

  @Test
  void debeziumWithApicuriosAvroConverterWritesEveryEventInBothWireFormats() throws Exception {
    Postgres.assumeAvailable();
    givenSourceTables();
    String slot = "floe_avro_" + Long.toHexString(System.nanoTime());
    List<SourceRecord> events;
    try (DebeziumAvroCapture capture = new DebeziumAvroCapture(slot, "public.floe_avro_types,public.floe_avro_toast")) {
      capture.awaitRecords(2, Duration.ofSeconds(90)); // the snapshot: two 'r' events
      Postgres.execute(
          "INSERT INTO floe_avro_types (id) VALUES (3)",
          "UPDATE floe_avro_types SET c_text = 'updated', c_numeric = 1.5 WHERE id = 1",
          "DELETE FROM floe_avro_types WHERE id = 2",
          "INSERT INTO floe_avro_toast VALUES (1, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g), 1)",
          "UPDATE floe_avro_toast SET small = 2 WHERE id = 1", // 'big' is TOASTed and unchanged: a placeholder
          "UPDATE floe_avro_toast SET id = 7 WHERE id = 1", // key move: delete + tombstone + create
          "INSERT INTO floe_avro_toast VALUES (2, 'short', 5)",
          "TRUNCATE floe_avro_toast",
          "ALTER TABLE floe_avro_types ADD COLUMN c_added integer DEFAULT 42",
          "INSERT INTO floe_avro_types (id, c_text) VALUES (4, 'after the new column')");
      events = capture.awaitRecords(EVENTS, Duration.ofSeconds(90));
    }

    try (SchemaRegistryServer registry = SchemaRegistryServer.start()) {
      givenAnArtifactThatWentBackToAnEarlierSchema(registry);
      Map<WireFormat, List<Captured>> formats = new LinkedHashMap<>();
      for (WireFormat f : WireFormat.values()) {
        formats.put(f, DebeziumAvroCapture.convert(events, f, registry.v2Url()));
        assertThat(throughKafka(formats.get(f), f)).as("%s records after a trip through Kafka", f)
            .isEqualTo(fingerprints(formats.get(f)));
      }
      assertThat(registry.unserved()).as("requests the registry could not answer").isEmpty();
      List<Long> contentIds = ids(formats.get(WireFormat.CONFLUENT), WireFormat.CONFLUENT);
      List<Long> globalIds = ids(formats.get(WireFormat.APICURIO_HEADERS), WireFormat.APICURIO_HEADERS);
      Schemas schemas = new Schemas(fetch(registry.v2Url() + "/ids/contentIds/", contentIds),
          fetch(registry.v2Url() + "/ids/globalIds/", globalIds));

      AvroSamples.assertCaptureHolds(formats.get(WireFormat.CONFLUENT), formats.get(WireFormat.APICURIO_HEADERS), schemas);

      String target = System.getProperty("floe.capture.write");
      if (target != null && !target.isBlank()) {
        Path dir = Path.of(target).resolve(AvroSamples.DIR);
        for (WireFormat f : WireFormat.values()) {
          AvroSamples.write(dir, f, formats.get(f));
        }
        AvroSamples.writeSchemas(dir, registry.v2Url(), contentIds, globalIds,
            "PostgreSQL 15, Debezium 3.6.1.Final embedded, io.apicurio:apicurio-registry-utils-converter:2.6.13.Final AvroConverter, "
                + (registry.real() ? "registry " + registry.baseUrl() : "the in-process registry stand-in (Apicurio's id rules)"));
      }
    }
  }

  /**
   * Three versions of one artifact, the third with the first's content: globalIds 1, 2, 3 and
   * contentIds 1, 2, 1. From here on the two kinds of id differ, so a reader that takes one for
   * the other fails on the samples instead of passing by luck.
   */
  private static void givenAnArtifactThatWentBackToAnEarlierSchema(SchemaRegistryServer registry) {
    RegistryClient client = RegistryClientFactory.create(registry.v2Url());
    String artifact = "floe-avro-samples-" + System.nanoTime();
    for (String field : List.of("a", "b", "a")) {
      String schema = "{\"type\":\"record\",\"name\":\"Earlier\",\"fields\":[{\"name\":\"" + field + "\",\"type\":\"int\"}]}";
      client.createArtifact("default", artifact, null, "AVRO", IfExists.UPDATE, false,
          new java.io.ByteArrayInputStream(schema.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
  }

  /** The every-type table of PostgresRoundTripTest (same columns), and a TOAST table. */
  private static void givenSourceTables() throws Exception {
    Postgres.execute(
        "DROP TABLE IF EXISTS floe_avro_types", "DROP TABLE IF EXISTS floe_avro_toast", "DROP TYPE IF EXISTS floe_avro_mood",
        "CREATE TYPE floe_avro_mood AS ENUM ('sad', 'ok', 'happy')",
        "CREATE TABLE floe_avro_types (id bigint PRIMARY KEY, c_smallint smallint, c_int integer, c_bigint bigint,"
            + " c_real real, c_double double precision, c_bool boolean, c_text text, c_varchar varchar(40),"
            + " c_bytea bytea, c_date date, c_time time, c_timestamp timestamp, c_timestamptz timestamptz,"
            + " c_numeric numeric(12,4), c_numeric_var numeric, c_uuid uuid, c_json json, c_jsonb jsonb,"
            + " c_enum floe_avro_mood, c_int_array integer[], c_text_array text[])",
        "CREATE TABLE floe_avro_toast (id integer PRIMARY KEY, big text, small integer)",
        "ALTER TABLE floe_avro_toast ALTER COLUMN big SET STORAGE EXTERNAL",
        "INSERT INTO floe_avro_types VALUES (1, 32767, 2147483647, 9007199254740993, 3.25, 1.0000000000000002, true,"
            + " 'héllo ☃', 'v', '\\xDEADBEEF', '1969-07-20', '13:45:56.123456', '2024-02-29 23:59:59.999999',"
            + " '2024-06-01 12:00:00.000001+02', -12345678.1234, 3.14159265358979323846,"
            + " 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": 1}', '{\"b\": [1, 2]}', 'happy', '{1,2,3}', '{\"x\",\"y\"}')",
        "INSERT INTO floe_avro_types VALUES (2, -32768, -2147483648, -9223372036854775808, -0.5, -1e300, false,"
            + " '', '', '\\x', '1900-03-01', '00:00:00', '1900-01-01 00:00:00.5', '1970-01-01 00:00:00+00',"
            + " 0.0001, 123456789012345678901234567890.5, '00000000-0000-0000-0000-000000000000', '[]', '{}', 'sad', '{}', '{NULL,\"\"}')");
  }

  /** Produces the records, in order, to a new one-partition topic and reads them back. */
  private static List<String> throughKafka(List<Captured> records, WireFormat f) {
    String topic = TestKafka.topic("floe-avro-" + f.name().toLowerCase(), 1);
    List<dev.floe.worker.decode.RawRecord> raw = new ArrayList<>();
    for (Captured c : records) {
      raw.add(new Captured(topic, c.key(), c.value(), c.headers()).raw(0, 0));
    }
    TestKafka.produce(raw);
    List<String> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : TestKafka.readAll(topic, records.size(), Duration.ofSeconds(30))) {
      Map<String, byte[]> headers = new LinkedHashMap<>();
      for (Header h : r.headers()) {
        headers.put(h.key(), h.value());
      }
      out.add(fingerprint(new Captured(topic, r.key(), r.value(), headers)));
    }
    return out;
  }

  private static List<String> fingerprints(List<Captured> records) {
    return records.stream().map(DebeziumAvroCaptureTest::fingerprint).toList();
  }

  private static String fingerprint(Captured c) {
    StringBuilder s = new StringBuilder(hex(c.key())).append('|').append(hex(c.value()));
    c.headers().forEach((k, v) -> s.append('|').append(k).append('=').append(hex(v)));
    return s.toString();
  }

  private static String hex(byte[] b) {
    return b == null ? "null" : java.util.HexFormat.of().formatHex(b);
  }

  private static List<Long> ids(List<Captured> records, WireFormat f) {
    List<Long> out = new ArrayList<>();
    for (Captured c : records) {
      if (c.key() != null) {
        out.add(AvroSamples.frame(f, c, true).id());
      }
      if (c.value() != null) {
        out.add(AvroSamples.frame(f, c, false).id());
      }
    }
    return out;
  }

  private static Map<Long, Schema> fetch(String prefix, List<Long> ids) throws Exception {
    Map<Long, Schema> out = new TreeMap<>();
    var http = java.net.http.HttpClient.newHttpClient();
    for (long id : new java.util.TreeSet<>(ids)) {
      var r = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(prefix + id)).GET().build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("GET %s%d", prefix, id).isEqualTo(200);
      out.put(id, new Schema.Parser().parse(r.body()));
    }
    return out;
  }
}
