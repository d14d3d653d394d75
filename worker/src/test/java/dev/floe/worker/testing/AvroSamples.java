package dev.floe.worker.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.floe.worker.testing.DebeziumAvroCapture.Captured;
import dev.floe.worker.testing.DebeziumAvroCapture.WireFormat;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * The captured Debezium Avro samples under {@code dev/floe/worker/decode/avro/}: one JSON line per
 * Kafka record ({@code topic}; {@code key}, {@code value} and each header base64, null for none) per
 * wire format, and {@code schemas.json} with every writer schema by {@code contentIds} and by
 * {@code globalIds}, so decoder tests need no registry. Also reads a record's writer-schema id and
 * payload as each wire format carries them.
 */
public final class AvroSamples {
  public static final String DIR = "dev/floe/worker/decode/avro/";
  public static final String SCHEMAS = "schemas.json";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The writer schemas by id kind ({@code contentIds}, {@code globalIds}) and id. */
  public record Schemas(Map<Long, Schema> byContentId, Map<Long, Schema> byGlobalId) {
    public Schema writer(WireFormat format, long id) {
      return (format == WireFormat.CONFLUENT ? byContentId : byGlobalId).get(id);
    }
  }

  /** Where one side (key or value) of a record keeps its schema id, and its Avro binary. */
  public record Framed(long id, ByteBuffer avro) {}

  private AvroSamples() {}

  public static String file(WireFormat format) {
    return "pg15-debezium-3.6.1-" + (format == WireFormat.CONFLUENT ? "confluent" : "apicurio-headers") + ".jsonl";
  }

  /** The id and Avro binary of a key or value in {@code format}; {@code key} picks the header of a headers record. */
  public static Framed frame(WireFormat format, Captured record, boolean key) {
    byte[] payload = key ? record.key() : record.value();
    if (format == WireFormat.CONFLUENT) {
      ByteBuffer b = ByteBuffer.wrap(payload);
      assertThat(b.get()).as("Confluent magic byte").isEqualTo((byte) 0);
      long id = Integer.toUnsignedLong(b.getInt());
      return new Framed(id, b.slice());
    }
    byte[] header = record.headers().get(key ? "apicurio.key.globalId" : "apicurio.value.globalId");
    assertThat(header).as("the globalId header of the %s", key ? "key" : "value").isNotNull().hasSize(8);
    return new Framed(ByteBuffer.wrap(header).getLong(), ByteBuffer.wrap(payload));
  }

  /** Decodes a key or value with its writer schema, insisting that the schema consumes every byte. */
  public static GenericRecord decode(WireFormat format, Captured record, boolean key, Schemas schemas) {
    Framed f = frame(format, record, key);
    Schema writer = schemas.writer(format, f.id());
    assertThat(writer).as("%s id %d resolves to a saved schema", format, f.id()).isNotNull();
    try {
      BinaryDecoder d = DecoderFactory.get().binaryDecoder(f.avro().array(), f.avro().arrayOffset() + f.avro().position(),
          f.avro().remaining(), null);
      GenericRecord out = new GenericDatumReader<GenericRecord>(writer).read(null, d);
      assertThat(d.isEnd()).as("the writer schema reads the whole payload").isTrue();
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static void write(Path dir, WireFormat format, List<Captured> records) throws IOException {
    StringBuilder out = new StringBuilder();
    for (Captured c : records) {
      ObjectNode line = JSON.createObjectNode();
      line.put("topic", c.topic());
      line.put("key", base64(c.key()));
      line.put("value", base64(c.value()));
      ObjectNode headers = line.putObject("headers");
      c.headers().forEach((k, v) -> headers.put(k, base64(v)));
      out.append(JSON.writeValueAsString(line)).append('\n');
    }
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(file(format)), out);
  }

  /** Saves the schemas of the given ids, read back from the registry's native API. */
  public static void writeSchemas(Path dir, String registryV2Url, List<Long> contentIds, List<Long> globalIds, String provenance)
      throws IOException, InterruptedException {
    ObjectNode root = JSON.createObjectNode();
    root.put("provenance", provenance);
    ObjectNode c = root.putObject("contentIds");
    for (long id : new java.util.TreeSet<>(contentIds)) {
      c.set(String.valueOf(id), JSON.readTree(get(registryV2Url + "/ids/contentIds/" + id)));
    }
    ObjectNode g = root.putObject("globalIds");
    for (long id : new java.util.TreeSet<>(globalIds)) {
      g.set(String.valueOf(id), JSON.readTree(get(registryV2Url + "/ids/globalIds/" + id)));
    }
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(SCHEMAS), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
  }

  public static List<Captured> read(WireFormat format) throws IOException {
    List<Captured> out = new ArrayList<>();
    for (String line : resource(file(format)).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n = JSON.readTree(line);
      Map<String, byte[]> headers = new LinkedHashMap<>();
      n.path("headers").fields().forEachRemaining(e -> headers.put(e.getKey(), unbase64(e.getValue())));
      out.add(new Captured(n.path("topic").asText(), unbase64(n.get("key")), unbase64(n.get("value")), headers));
    }
    return out;
  }

  public static Schemas readSchemas() throws IOException {
    JsonNode root = JSON.readTree(resource(SCHEMAS));
    return new Schemas(schemas(root.path("contentIds")), schemas(root.path("globalIds")));
  }

  /**
   * What the capture claims: both wire formats carry the same events, every key and value names a
   * writer schema that is saved and reads its whole payload, and the events include every op
   * (snapshot read, create, update, delete, tombstone, truncate), a key move with its headers, a
   * TOAST placeholder, an ADD COLUMN with its default, and Debezium's logical types.
   */
  public static void assertCaptureHolds(List<Captured> confluent, List<Captured> headers, Schemas schemas) {
    assertThat(headers).hasSameSizeAs(confluent);
    List<String> ops = new ArrayList<>();
    for (int i = 0; i < confluent.size(); i++) {
      Captured a = confluent.get(i);
      Captured b = headers.get(i);
      assertThat(b.topic()).isEqualTo(a.topic());
      assertThat(a.headers().keySet()).as("no Apicurio headers in the Confluent format").noneMatch(k -> k.startsWith("apicurio."));
      if (a.key() != null) {
        assertThat(decode(WireFormat.APICURIO_HEADERS, b, true, schemas).toString())
            .isEqualTo(decode(WireFormat.CONFLUENT, a, true, schemas).toString());
      } else {
        assertThat(b.key()).isNull();
      }
      if (a.value() == null) {
        assertThat(b.value()).as("a tombstone in both").isNull();
        ops.add("tombstone");
        continue;
      }
      GenericRecord value = decode(WireFormat.CONFLUENT, a, false, schemas);
      assertThat(decode(WireFormat.APICURIO_HEADERS, b, false, schemas).toString()).isEqualTo(value.toString());
      String op = value.get("op").toString();
      ops.add(op);
      if (a.headers().containsKey("__debezium.oldkey")) {
        assertThat(op).as("the insert half of a key move carries the old key").isEqualTo("c");
      }
    }
    assertThat(ops).contains("r", "c", "u", "d", "t", "tombstone");
    assertThat(confluent).as("a key move: old key on the insert, new key on the delete and its tombstone")
        .anyMatch(c -> c.headers().containsKey("__debezium.oldkey"))
        .anyMatch(c -> c.headers().containsKey("__debezium.newkey") && c.value() == null)
        .anyMatch(c -> c.headers().containsKey("__debezium.newkey") && c.value() != null);
    assertThat(confluent).as("a TOAST placeholder")
        .anyMatch(c -> c.value() != null && decode(WireFormat.CONFLUENT, c, false, schemas).toString().contains("__debezium_unavailable_value"));
    List<Schema> typeSchemas = confluent.stream().filter(c -> c.topic().endsWith("floe_avro_types") && c.value() != null)
        .map(c -> schemas.writer(WireFormat.CONFLUENT, frame(WireFormat.CONFLUENT, c, false).id())).distinct().toList();
    assertThat(typeSchemas).as("ADD COLUMN registered a second value schema").hasSize(2);
    Schema added = typeSchemas.get(1).getField("after").schema().getTypes().stream()
        .filter(t -> t.getType() == Schema.Type.RECORD).findFirst().orElseThrow();
    assertThat(added.getField("c_added")).as("the added column").isNotNull();
    String addedJson = added.toString();
    assertThat(addedJson.substring(addedJson.indexOf("\"c_added\""))).as("the new column's default, as the event schema tells it")
        .startsWith("\"c_added\"").contains("42");
    String writer = typeSchemas.get(0).toString();
    for (String logical : List.of("io.debezium.data.VariableScaleDecimal", "io.debezium.time.MicroTimestamp",
        "io.debezium.time.ZonedTimestamp", "io.debezium.time.Date", "io.debezium.time.MicroTime", "io.debezium.data.Uuid",
        "io.debezium.data.Json", "io.debezium.data.Enum", "\"logicalType\":\"decimal\"", "\"type\":\"array\"", "\"bytes\"")) {
      assertThat(writer).as("the every-type schema names %s", logical).contains(logical);
    }
  }

  private static Map<Long, Schema> schemas(JsonNode byId) {
    Map<Long, Schema> out = new TreeMap<>();
    byId.fields().forEachRemaining(e -> out.put(Long.parseLong(e.getKey()), new Schema.Parser().parse(e.getValue().toString())));
    return out;
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = AvroSamples.class.getClassLoader().getResourceAsStream(DIR + name)) {
      assertThat(in).as("test resource %s%s", DIR, name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String get(String url) throws IOException, InterruptedException {
    var http = java.net.http.HttpClient.newHttpClient();
    var r = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).GET().build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("GET %s", url).isEqualTo(200);
    return r.body();
  }

  private static String base64(byte[] b) {
    return b == null ? null : Base64.getEncoder().encodeToString(b);
  }

  private static byte[] unbase64(JsonNode n) {
    return n == null || n.isNull() ? null : Base64.getDecoder().decode(n.asText());
  }
}
