package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.fold.Unchanged;
import dev.floe.worker.quickstart.ConnectColumn;
import dev.floe.worker.quickstart.DebeziumEnvelopes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The test generator writes a primary-key update as Debezium 3.6.1 wrote one from PostgreSQL 15
 * (sample captured by KeyMoveToastTest: {@code UPDATE ... SET id = 6 WHERE id = 1} of a row whose
 * TOASTed note was left alone): the old key's {@code d} and tombstone carrying
 * {@code __debezium.newkey}, the new key's {@code c} carrying {@code __debezium.oldkey}, one LSN.
 */
class KeyUpdateSampleTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<RawRecord> CAPTURED = new ArrayList<>();
  private final DebeziumDecoder decoder = new DebeziumDecoder(List.of());

  @BeforeAll
  static void load() throws IOException {
    try (InputStream in = KeyUpdateSampleTest.class.getResourceAsStream("/debezium/pg15-debezium-3.6.1-key-update.jsonl")) {
      long offset = 0;
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        JsonNode n = JSON.readTree(line);
        Map<String, byte[]> headers = new HashMap<>();
        n.path("headers").fields().forEachRemaining(h -> headers.put(h.getKey(), h.getValue().asText().getBytes(StandardCharsets.UTF_8)));
        CAPTURED.add(new RawRecord(n.get("topic").asText(), 0, offset++, bytes(n.get("key")), bytes(n.get("value")), headers));
      }
    }
  }

  @Test
  void debeziumWritesBothHalvesWithOneLsnAndEachNamesTheOtherKey() throws IOException {
    assertKeyUpdateShape(CAPTURED);
  }

  @Test
  void theGeneratorWritesAKeyUpdateTheSameWay() throws IOException {
    DebeziumEnvelopes envelopes = DebeziumEnvelopes.forTopic("floe.floe_keymove.orders")
        .columns(List.of(ConnectColumn.int64("id").required(), ConnectColumn.string("note"), ConnectColumn.int32("qty")))
        .key("id");
    envelopes.update(0, Map.of("id", 1L, "note", "a long note", "qty", 3));
    Map<String, Object> moved = new HashMap<>(Map.of("id", 6L, "qty", 53));
    moved.put("note", Unchanged.VALUE);
    List<RawRecord> generated = envelopes.keyUpdate(0, Map.of("id", 1L), 1, moved);

    assertKeyUpdateShape(generated);
    assertThat(generated).extracting(RawRecord::partition).containsExactly(0, 0, 1);
    for (int i = 0; i < 3; i++) {
      assertThat(generated.get(i).headers().keySet()).as("record %d", i)
          .isSubsetOf(CAPTURED.get(i).headers().keySet());
      for (String h : generated.get(i).headers().keySet()) {
        assertThat(keyFields(generated.get(i).headers().get(h))).as("header %s of record %d", h, i)
            .isEqualTo(keyFields(CAPTURED.get(i).headers().get(h)));
      }
    }
  }

  /** d + tombstone + c; the d and its tombstone name the new key, the c the old; d and c share the LSN. */
  private void assertKeyUpdateShape(List<RawRecord> records) throws IOException {
    assertThat(records).hasSize(3);
    RawRecord delete = records.get(0);
    RawRecord tombstone = records.get(1);
    RawRecord create = records.get(2);
    assertThat(op(delete)).isEqualTo("d");
    assertThat(tombstone.value()).isNull();
    assertThat(op(create)).isEqualTo("c");
    assertThat(JSON.readTree(tombstone.key())).isEqualTo(JSON.readTree(delete.key()));

    assertThat(delete.headers()).containsKey(DebeziumEnvelopes.NEW_KEY_HEADER).doesNotContainKey(DebeziumEnvelopes.OLD_KEY_HEADER);
    assertThat(tombstone.headers()).containsKey(DebeziumEnvelopes.NEW_KEY_HEADER).doesNotContainKey(DebeziumEnvelopes.OLD_KEY_HEADER);
    assertThat(create.headers()).containsKey(DebeziumEnvelopes.OLD_KEY_HEADER).doesNotContainKey(DebeziumEnvelopes.NEW_KEY_HEADER);
    assertThat(JSON.readTree(delete.headers().get(DebeziumEnvelopes.NEW_KEY_HEADER))).as("the new key, as the c's record key")
        .isEqualTo(JSON.readTree(create.key()));
    assertThat(JSON.readTree(tombstone.headers().get(DebeziumEnvelopes.NEW_KEY_HEADER))).isEqualTo(JSON.readTree(create.key()));
    assertThat(JSON.readTree(create.headers().get(DebeziumEnvelopes.OLD_KEY_HEADER))).as("the old key, as the d's record key")
        .isEqualTo(JSON.readTree(delete.key()));

    ChangeEvent d = event(delete);
    ChangeEvent c = event(create);
    assertThat(d.lsn()).as("one LSN for both halves").isNotNull().isEqualTo(c.lsn());
    assertThat(d.op()).isEqualTo(Op.DELETE);
    assertThat(c.previousKey()).isEqualTo(d.key());
    assertThat(c.values()[c.schema().position("note")]).as("the TOASTed note, unchanged").isEqualTo(Unchanged.VALUE);
    assertThat(decoder.decode(tombstone, null)).isInstanceOf(Decoded.Skip.class);
  }

  private ChangeEvent event(RawRecord r) {
    Decoded decoded = decoder.decode(r, null);
    assertThat(decoded).as("decoding %s", r).isInstanceOf(ChangeEvent.class);
    return (ChangeEvent) decoded;
  }

  private static String op(RawRecord r) throws IOException {
    return JSON.readTree(r.value()).path("payload").path("op").asText();
  }

  /** A key header's schema fields and payload (the schema's name differs with the topic prefix). */
  private static List<JsonNode> keyFields(byte[] header) throws IOException {
    JsonNode n = JSON.readTree(header);
    return List.of(n.path("schema").path("fields"), n.path("payload"));
  }

  private static byte[] bytes(JsonNode n) {
    return n == null || n.isNull() ? null : n.toString().getBytes(StandardCharsets.UTF_8);
  }
}
