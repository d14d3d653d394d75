package dev.floe.worker.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.decode.RawRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The generator's records have the envelope and source block of the records Debezium 3.6.1 wrote
 * for PostgreSQL 15 (the captured test resource): the same fields in the same order, in the payload
 * and in its schema, so benchmarks decode what a real stream carries.
 */
class GeneratedShapeTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void anUpdateHasTheCapturedEnvelopeAndSourceBlock() throws IOException {
    // given an update captured from Debezium and one the generator writes
    JsonNode captured = capturedUpdate();
    RawRecord generated = DebeziumEnvelopes.forTopic("shop.public.orders").columns(List.of(ConnectColumn.int64("id").required(),
        ConnectColumn.string("status"))).key("id").update(0, Map.of("id", 7L, "status", "paid"));
    JsonNode value = JSON.readTree(new String(generated.value(), StandardCharsets.UTF_8));

    // then both list the same fields in the same order
    assertThat(names(value.get("payload"))).isEqualTo(names(captured.get("payload")));
    assertThat(names(value.get("payload").get("source"))).isEqualTo(names(captured.get("payload").get("source")));
    assertThat(schemaFields(value.get("schema"))).isEqualTo(schemaFields(captured.get("schema")));
    assertThat(schemaFields(value.get("schema").get("fields").get(2))).isEqualTo(schemaFields(captured.get("schema").get("fields").get(2)));
    assertThat(value.get("payload").get("source").get("lsn").isIntegralNumber()).isTrue();
  }

  private static JsonNode capturedUpdate() throws IOException {
    try (InputStream in = GeneratedShapeTest.class.getResourceAsStream("/debezium/pg15-debezium-3.6.1.jsonl")) {
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        JsonNode value = JSON.readTree(line).get("value");
        if (value != null && !value.isNull() && "u".equals(value.path("payload").path("op").asText())) {
          return value;
        }
      }
    }
    throw new IllegalStateException("the captured samples hold no update");
  }

  private static List<String> names(JsonNode object) {
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** A struct schema's fields as name:type. */
  private static List<String> schemaFields(JsonNode struct) {
    List<String> fields = new ArrayList<>();
    struct.get("fields").forEach(f -> fields.add(f.get("field").asText() + ":" + f.get("type").asText()));
    return fields;
  }
}
