package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The envelope scanner finds exactly the schema and payload Jackson finds, or declines. */
class EnvelopeScannerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Test
  void bracesQuotesAndBackslashesInsideStringsDoNotEndTheSchema() throws Exception {
    ObjectNode schema = NODES.objectNode().put("doc", "a } \" \\ { ] [ é ☃ \\\"").put("type", "struct");
    schema.putArray("fields").addObject().put("field", "}{").put("optional", true);
    ObjectNode payload = NODES.objectNode().put("note", "\"}\\").put("op", "c");

    assertFoundExactly(envelope(schema, payload), schema, payload);
    assertFoundExactly(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(envelopeNode(schema, payload)), schema, payload);
  }

  @Test
  void anythingButJsonConvertersLayoutIsLeftToTheGeneralPath() {
    for (String value : List.of(
        "{\"payload\":{},\"schema\":{}}",          // other order
        "{\"schema\":{},\"payload\":{},\"x\":1}",  // extra field
        "{\"schema\":null,\"payload\":{}}",        // no schema
        "{\"schema\":{},\"payload\":null}",        // no payload object
        "{\"schema\":{\"a\":\"}\",\"payload\":{}}", // the schema never closes
        "{\"schema\":{},\"payload\":{}",           // truncated
        "[1,2]", "", "{\"op\":\"c\"}")) {
      assertThat(EnvelopeScanner.scan(value.getBytes(StandardCharsets.UTF_8))).as(value).isNull();
    }
  }

  @Property
  void onRandomDocumentsTheSpansHoldExactlyTheSchemaAndThePayload(@ForAll("objects") ObjectNode schema, @ForAll("objects") ObjectNode payload)
      throws Exception {
    assertFoundExactly(envelope(schema, payload), schema, payload);
  }

  @Provide
  Arbitrary<ObjectNode> objects() {
    Arbitrary<String> text = Arbitraries.strings().withChars("{}[]\"\\:, abcé☃\n\t").ofMaxLength(12);
    Arbitrary<JsonNode> leaf = Arbitraries.oneOf(text.map(NODES::textNode), Arbitraries.integers().map(NODES::numberNode),
        Arbitraries.of(NODES.nullNode(), NODES.booleanNode(true)));
    Arbitrary<JsonNode> array = leaf.list().ofMaxSize(4).map(items -> {
      ArrayNode a = NODES.arrayNode();
      items.forEach(a::add);
      return a;
    });
    Arbitrary<JsonNode> inner = Arbitraries.oneOf(leaf, array, Arbitraries.maps(text, leaf).ofMaxSize(3).map(m -> {
      ObjectNode o = NODES.objectNode();
      m.forEach(o::set);
      return o;
    }));
    return Arbitraries.maps(text, inner).ofMaxSize(5).map(m -> {
      ObjectNode o = NODES.objectNode();
      m.forEach(o::set);
      return o;
    });
  }

  private static void assertFoundExactly(byte[] value, JsonNode schema, JsonNode payload) throws Exception {
    EnvelopeScanner.Spans spans = EnvelopeScanner.scan(value);
    assertThat(spans).as(new String(value, StandardCharsets.UTF_8)).isNotNull();
    assertThat(JSON.readTree(Arrays.copyOfRange(value, spans.schemaStart(), spans.schemaEnd()))).isEqualTo(schema);
    assertThat(JSON.readTree(Arrays.copyOfRange(value, spans.payloadStart(), spans.payloadEnd()))).isEqualTo(payload);
  }

  private static byte[] envelope(JsonNode schema, JsonNode payload) throws Exception {
    return JSON.writeValueAsBytes(envelopeNode(schema, payload));
  }

  private static ObjectNode envelopeNode(JsonNode schema, JsonNode payload) {
    ObjectNode envelope = NODES.objectNode();
    envelope.set("schema", schema);
    envelope.set("payload", payload);
    return envelope;
  }
}
