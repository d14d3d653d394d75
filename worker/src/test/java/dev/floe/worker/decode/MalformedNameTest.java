package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A field name whose bytes are not UTF-8 is a rejection, even where Jackson would take it for a name
 * it knows: it validates a name's UTF-8 only when the name is new to its symbol table, and a known
 * name with 0xFF bytes spliced in (such as {@code "\xffqty"} for {@code "qty"}) has the same lookup
 * key as the known name. The fuzzer found the fast path and the general path disagreeing on it,
 * depending on which names earlier records had taught Jackson.
 */
class MalformedNameTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest(name = "{0} spliced as {1}")
  @CsvSource({
      "'\"qty\":', payload",   // a column of the row image
      "'\"field\":', schema",  // a key of the envelope's schema
  })
  void aKnownNameWithMalformedBytesSplicedInIsRejectedByBothPaths(String name, String where) throws IOException {
    // given a captured insert that both paths decoded, so that Jackson knows every name in it
    RawRecord captured = capturedInsert();
    DebeziumDecoder fast = new DebeziumDecoder(List.of("id"));
    DebeziumDecoder general = DebeziumDecoder.withoutEnvelopeScanner(List.of("id"));
    assertThat(fast.decode(captured, null)).isInstanceOf(ChangeEvent.class);
    assertThat(general.decode(captured, null)).isInstanceOf(ChangeEvent.class);

    // when a copy has that name's bytes with 0xFF bytes before its last (padded) lookup word
    RawRecord broken = new RawRecord(captured.topic(), 0, 1, captured.key(), spliced(captured.value(), name, where), captured.headers());

    // then both paths reject it, naming the reason
    for (DebeziumDecoder decoder : List.of(fast, general)) {
      Decoded decoded = decoder.decode(broken, null);
      assertThat(decoded).isInstanceOf(Decoded.Rejected.class);
      assertThat(((Decoded.Rejected) decoded).rejected().reason()).contains("not UTF-8");
    }
  }

  /** The value with the first occurrence of {@code name} in its payload or schema given 0xFF bytes that fill its last word. */
  private static byte[] spliced(byte[] value, String name, String where) {
    String text = new String(value, StandardCharsets.UTF_8);
    int payload = text.indexOf(",\"payload\":");
    int at = where.equals("payload") ? text.indexOf(name, payload) : text.indexOf(name);
    assertThat(at).isGreaterThan(0);
    byte[] quoted = name.getBytes(StandardCharsets.UTF_8);
    int chars = quoted.length - 3; // the name without its quotes and colon
    int pad = (4 - chars % 4) % 4;
    int lastWord = 1 + chars - chars % 4; // where the name's last, padded lookup word starts
    byte[] out = new byte[value.length + pad];
    System.arraycopy(value, 0, out, 0, at + lastWord);
    for (int i = 0; i < pad; i++) {
      out[at + lastWord + i] = (byte) 0xff;
    }
    System.arraycopy(value, at + lastWord, out, at + lastWord + pad, value.length - at - lastWord);
    return out;
  }

  private static RawRecord capturedInsert() throws IOException {
    try (InputStream in = MalformedNameTest.class.getResourceAsStream("/debezium/pg15-debezium-3.6.1-key-update.jsonl")) {
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        JsonNode n = JSON.readTree(line);
        if (n.path("value").path("payload").path("op").asText().equals("c")) {
          Map<String, byte[]> headers = new HashMap<>();
          n.path("headers").fields().forEachRemaining(h -> headers.put(h.getKey(), h.getValue().asText().getBytes(StandardCharsets.UTF_8)));
          return new RawRecord(n.get("topic").asText(), 0, 0, JSON.writeValueAsBytes(n.get("key")), JSON.writeValueAsBytes(n.get("value")), headers);
        }
      }
    }
    throw new IllegalStateException("no captured insert");
  }
}
