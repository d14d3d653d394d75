package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A key record of a key schema seen before is read straight from its payload; whatever that payload
 * holds, the decoder decides as the general path (Jackson's tree alone) does.
 */
class StreamedKeyTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest
  @ValueSource(strings = {
      "{\"id\":1}", "{\"id\":8,\"id\":1}", "{\"id\":1,\"id\":8}", "{\"id\":null,\"id\":1}", "{\"id\":1,\"id\":null}",
      "{\"id\":null}", "{}", "{\"nope\":1}", "{\"id\":1,\"nope\":1}", "{\"id\":\"1\"}", "{\"id\":1.0}",
      "{\"id\":\"__debezium_unavailable_value\"}", "{\"id\":{\"a\":1}}", "{\"id\":[1]}", "{\"id\":92233720368547758080}",
      "[1]", "1", "{\"id\":1} {}", "{\"id\":1"})
  void aKeyPayloadOfAKnownKeySchemaDecodesAsTheGeneralPathDecodesIt(String payload) throws IOException {
    // given a captured insert whose key envelope the decoder has seen once (so it knows the key schema)
    RawRecord captured = firstCapturedWithAKeyEnvelope();
    DebeziumDecoder streamed = new DebeziumDecoder(List.of("id"));
    streamed.decode(captured, null);
    JsonNode key = JSON.readTree(captured.key());
    String keyJson = "{\"schema\":" + JSON.writeValueAsString(key.get("schema")) + ",\"payload\":" + payload + "}";
    RawRecord record = new RawRecord(captured.topic(), 0, 1, keyJson.getBytes(StandardCharsets.UTF_8), captured.value(), captured.headers());

    // when the key payload is read straight, and by the general path
    Decoded fast = streamed.decode(record, null);
    Decoded reference = DebeziumDecoder.withoutEnvelopeScanner(List.of("id")).decode(record, null);

    // then both reach the same decision
    assertThat(outcome(fast)).isEqualTo(outcome(reference));
  }

  @org.junit.jupiter.api.Test
  void aOneColumnKeyIsHeldAsItsColumnAndValueNotAsAMapPerEvent() {
    // given a captured insert of a table keyed by one column, decoded by the fast path and by the general one
    RawRecord captured = firstCapturedWithAKeyEnvelope();
    DebeziumDecoder streamed = new DebeziumDecoder(List.of("id"));
    streamed.decode(captured, null);
    for (Decoded d : List.of(streamed.decode(captured, null), DebeziumDecoder.withoutEnvelopeScanner(List.of("id")).decode(captured, null))) {
      // then the event holds the key's column and value, and no map, yet reads as the same key by name
      ChangeEvent c = (ChangeEvent) d;
      assertThat(c.keyColumn()).isEqualTo("id");
      assertThat(c.keyValue()).isNotNull();
      assertThat(c.keyColumns()).isNull();
      assertThat(c.key()).isEqualTo(java.util.Map.of("id", c.keyValue()));
    }
  }

  @org.junit.jupiter.api.Test
  void aKeyOfSeveralColumnsOrNoneStaysAMap() {
    RawRecord r = new RawRecord("t", 0, 0, null, null);
    java.util.Map<String, Object> two = new java.util.LinkedHashMap<>();
    two.put("a", 1L);
    two.put("b", "x");
    assertThat(new ChangeEvent(Op.DELETE, two, null, null, 1L, r).keyColumns()).isEqualTo(two);
    assertThat(new ChangeEvent(Op.DELETE, two, null, null, 1L, r).keyColumn()).isNull();
    assertThat(new ChangeEvent(Op.TRUNCATE, java.util.Map.of(), null, null, 1L, r).key()).isEmpty();
    java.util.Map<String, Object> nullValued = new java.util.HashMap<>();
    nullValued.put("id", null);
    assertThat(new ChangeEvent(Op.DELETE, nullValued, null, null, 1L, r).key()).isSameAs(nullValued);
  }

  /** Key payloads near the one-column shape read by comparing bytes: numbers and strings of every kind, names, layouts. */
  @Property(tries = 300)
  void aGeneratedKeyPayloadDecodesAsTheGeneralPathDecodesIt(@ForAll("keyPayloads") String payload) throws IOException {
    aKeyPayloadOfAKnownKeySchemaDecodesAsTheGeneralPathDecodesIt(payload);
  }

  @Provide
  Arbitrary<String> keyPayloads() {
    return KeyPayloadTest.payloads(Arbitraries.of("id", "id", "id", "ID", "nope", "i\\u0064", "", "id "));
  }

  private static String outcome(Decoded d) {
    if (d instanceof ChangeEvent c) {
      return c.op() + " key=" + c.key() + " " + c.key().getClass().getSimpleName() + " values=" + Arrays.deepToString(c.values());
    }
    return d instanceof Decoded.Skip s ? "skip " + s.why() : "rejected";
  }

  private static RawRecord firstCapturedWithAKeyEnvelope() {
    try (InputStream in = StreamedKeyTest.class.getResourceAsStream("/debezium/pg15-debezium-3.6.1.jsonl")) {
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        JsonNode n = JSON.readTree(line);
        JsonNode key = n.get("key");
        if (key != null && key.has("schema") && key.path("payload").has("id") && n.path("value").path("payload").path("after").isObject()) {
          return new RawRecord(n.get("topic").asText(), 0, 0, JSON.writeValueAsBytes(key), JSON.writeValueAsBytes(n.get("value")), java.util.Map.of());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no captured insert with a key envelope");
  }
}
