package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuzzes the envelope decoder and, through it, every value codec: whatever the bytes, a record is
 * decoded, skipped or rejected with a bounded reason; no other exception escapes. Inputs start from
 * real Debezium captures (every mapped type, TOAST, key updates) and are broken three ways: raw
 * bytes, a payload value swapped for a fuzzed JSON value of any kind, and bytes spliced into a
 * captured envelope. Without {@code JAZZER_FUZZ} it replays its findings directory only; {@code
 * .ci/run} fuzzes it briefly, {@code -Dfloe.fuzz.duration=10m} longer (see worker/pom.xml).
 */
class DecoderFuzzTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<RawRecord> CAPTURED = captured();
  private static final DebeziumDecoder DECODER = new DebeziumDecoder(List.of("id"));
  /** The general path (Jackson alone): the reference the fast paths must agree with. */
  private static final DebeziumDecoder REFERENCE = DebeziumDecoder.withoutEnvelopeScanner(List.of("id"));
  /** Records held as an open batch holds them, their schema head shared: decoded alike, and given back byte for byte. */
  private static final SharedSchemas SHARED = new SharedSchemas();
  private static final DebeziumDecoder SHARED_DECODER = new DebeziumDecoder(List.of("id"));

  @FuzzTest(maxDuration = "20s")
  void everyRecordIsDecodedSkippedOrRejectedWithABoundedReason(FuzzedDataProvider data) {
    RawRecord base = CAPTURED.get(data.consumeInt(0, CAPTURED.size() - 1));
    RawRecord record = switch (data.consumeInt(0, 2)) {
      case 0 -> withValue(base, data.consumeBoolean() ? data.consumeBytes(64) : base.key(), data.consumeRemainingAsBytes());
      case 1 -> withValue(base, base.key(), swappedPayloadValue(base.value(), data));
      default -> withValue(base, base.key(), spliced(base.value(), data));
    };

    Decoded decoded = DECODER.decode(record, null);

    assertThat(decoded).isNotNull();
    if (decoded instanceof Decoded.Rejected r) {
      assertThat(r.rejected().reason()).isNotBlank().hasSizeLessThanOrEqualTo(Reasons.MAX_CHARS);
    }
    // the fast paths (envelopes recognised by bytes, schemas located by a scan) decide as the general path does
    assertThat(outcome(decoded)).as(() -> "value " + (record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8)))
        .isEqualTo(outcome(REFERENCE.decode(record, null)));
    RawRecord held = SHARED.share(record);
    assertThat(held.value()).isEqualTo(record.value());
    assertThat(outcome(SHARED_DECODER.decode(held, null))).isEqualTo(outcome(decoded));
  }

  /** What a decision is, leaving out the wording of a rejection (the two paths word some differently). */
  private static String outcome(Decoded d) {
    if (d instanceof ChangeEvent c) {
      return c.op() + " key=" + c.key() + " values=" + Arrays.deepToString(c.values()) + " lsn=" + c.lsn()
          + " fields=" + (c.schema() == null ? null : c.schema().fields().stream().map(f -> f.name() + ":" + f.type()).toList())
          + " previousKey=" + c.previousKey() + " nextKey=" + c.nextKey();
    }
    return d instanceof Decoded.Skip s ? "skip " + s.why() : "rejected";
  }

  /** The envelope with one field of its row image (or its op, or its source) set to a fuzzed JSON value. */
  private static byte[] swappedPayloadValue(byte[] value, FuzzedDataProvider data) {
    if (value == null) {
      return data.consumeRemainingAsBytes();
    }
    try {
      if (!(JSON.readTree(value) instanceof ObjectNode envelope) || !(envelope.get("payload") instanceof ObjectNode payload)) {
        return value; // a capture without an object payload: nothing to swap
      }
      ObjectNode target = payload;
      for (String image : List.of("after", "before", "source")) {
        if (payload.get(image) instanceof ObjectNode o && data.consumeBoolean()) {
          target = o;
          break;
        }
      }
      List<String> names = new ArrayList<>();
      target.fieldNames().forEachRemaining(names::add);
      String name = names.isEmpty() || data.consumeBoolean() ? data.consumeString(8) : names.get(data.consumeInt(0, names.size() - 1));
      target.set(name, fuzzedJson(data, 3));
      return JSON.writeValueAsBytes(envelope);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // the captures are JSON
    }
  }

  private static JsonNode fuzzedJson(FuzzedDataProvider data, int depth) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    return switch (data.consumeInt(0, depth > 0 ? 9 : 7)) {
      case 0 -> f.nullNode();
      case 1 -> f.booleanNode(data.consumeBoolean());
      case 2 -> f.numberNode(data.consumeLong());
      case 3 -> f.numberNode(data.consumeDouble());
      case 4 -> f.numberNode(new BigInteger(1 + data.consumeInt(0, 190), new java.util.Random(data.consumeLong())));
      case 5 -> f.numberNode(new BigDecimal(BigInteger.valueOf(data.consumeLong()), data.consumeInt(-400, 400)));
      case 6 -> f.textNode(data.consumeString(64));
      case 7 -> f.textNode(java.util.Base64.getEncoder().encodeToString(data.consumeBytes(32)));
      case 8 -> {
        var array = f.arrayNode();
        for (int i = data.consumeInt(0, 3); i > 0; i--) {
          array.add(fuzzedJson(data, depth - 1));
        }
        yield array;
      }
      default -> {
        ObjectNode object = f.objectNode();
        for (int i = data.consumeInt(0, 3); i > 0; i--) {
          object.set(data.consumeString(8), fuzzedJson(data, depth - 1));
        }
        yield object;
      }
    };
  }

  /** The envelope's bytes with a range replaced by fuzzed bytes. */
  private static byte[] spliced(byte[] value, FuzzedDataProvider data) {
    if (value == null || value.length == 0) {
      return data.consumeRemainingAsBytes();
    }
    int from = data.consumeInt(0, value.length - 1);
    int to = data.consumeInt(from, Math.min(value.length, from + 64));
    byte[] insert = data.consumeRemainingAsBytes();
    byte[] out = Arrays.copyOf(value, from + insert.length + value.length - to);
    System.arraycopy(insert, 0, out, from, insert.length);
    System.arraycopy(value, to, out, from + insert.length, value.length - to);
    return out;
  }

  private static RawRecord withValue(RawRecord base, byte[] key, byte[] value) {
    return new RawRecord(base.topic(), base.partition(), base.offset(), key, value, base.headers());
  }

  private static List<RawRecord> captured() {
    List<RawRecord> out = new ArrayList<>();
    for (String resource : List.of("/debezium/pg15-debezium-3.6.1.jsonl", "/debezium/pg15-debezium-3.6.1-key-update.jsonl")) {
      try (InputStream in = DecoderFuzzTest.class.getResourceAsStream(resource)) {
        long offset = 0;
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          JsonNode n = JSON.readTree(line);
          Map<String, byte[]> headers = new HashMap<>();
          n.path("headers").fields().forEachRemaining(h -> headers.put(h.getKey(), h.getValue().asText().getBytes(StandardCharsets.UTF_8)));
          out.add(new RawRecord(n.get("topic").asText(), 0, offset++, bytes(n.get("key")), bytes(n.get("value")), headers));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  private static byte[] bytes(JsonNode n) throws IOException {
    return n == null || n.isNull() ? null : JSON.writeValueAsBytes(n);
  }
}
