package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.fold.Unchanged;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Decodes records captured from PostgreSQL 15 by Debezium 3.6.1 (test resource written by
 * PostgresRoundTripTest) without needing a database: every type of the mapping, exact values.
 */
class CapturedSamplesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<RawRecord> TYPES = new ArrayList<>();
  private static final List<RawRecord> TOAST = new ArrayList<>();
  private final DebeziumDecoder decoder = new DebeziumDecoder(List.of());

  @BeforeAll
  static void load() throws IOException {
    try (InputStream in = CapturedSamplesTest.class.getResourceAsStream("/debezium/pg15-debezium-3.6.1.jsonl")) {
      long offset = 0;
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        JsonNode n = JSON.readTree(line);
        Map<String, byte[]> headers = new HashMap<>();
        n.path("headers").fields().forEachRemaining(h -> headers.put(h.getKey(), bytes(h.getValue().asText())));
        RawRecord r = new RawRecord(n.get("topic").asText(), 0, offset++, bytes(n.get("key")), bytes(n.get("value")), headers);
        (r.topic().endsWith("floe_types") ? TYPES : TOAST).add(r);
      }
    }
  }

  @Test
  void everyTypeOfTheMappingDecodesToItsExactValue() {
    ChangeEvent row1 = event(TYPES.get(0));
    assertThat(row1.op()).isEqualTo(Op.UPSERT);
    assertThat(row1.key()).containsExactly(Map.entry("id", 1L));
    Map<String, Object> v = byName(row1);
    assertThat(v).containsEntry("c_smallint", 32767)
        .containsEntry("c_int", 2147483647)
        .containsEntry("c_bigint", 9007199254740993L) // beyond a double's exact range
        .containsEntry("c_real", 3.25f)
        .containsEntry("c_double", 1.0000000000000002d)
        .containsEntry("c_bool", true)
        .containsEntry("c_text", "héllo ☃")
        .containsEntry("c_bytea", ByteBuffer.wrap(new byte[] {(byte) 0xDE, (byte) 0xAD, (byte) 0xBE, (byte) 0xEF}))
        .containsEntry("c_date", LocalDate.of(1969, 7, 20))
        .containsEntry("c_time", LocalTime.of(13, 45, 56, 123_456_000))
        .containsEntry("c_timestamp", LocalDateTime.of(2024, 2, 29, 23, 59, 59, 999_999_000))
        .containsEntry("c_timestamptz", OffsetDateTime.of(2024, 6, 1, 10, 0, 0, 1_000, ZoneOffset.UTC))
        .containsEntry("c_numeric", new BigDecimal("-12345678.1234"))
        .containsEntry("c_numeric_var", "3.14159265358979323846")
        .containsEntry("c_uuid", UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))
        .containsEntry("c_json", "{\"a\": 1}")
        .containsEntry("c_jsonb", "{\"b\": [1, 2]}")
        .containsEntry("c_enum", "happy")
        .containsEntry("c_int_array", List.of(1, 2, 3))
        .containsEntry("c_text_array", List.of("x", "y"));
    assertThat(row1.schema().field("c_numeric").type()).isEqualTo(Types.DecimalType.of(12, 4));
    assertThat(row1.schema().field("c_timestamptz").type()).isEqualTo(Types.TimestampType.withZone());

    Map<String, Object> v2 = byName(event(TYPES.get(1)));
    assertThat(v2).containsEntry("c_bigint", Long.MIN_VALUE)
        .containsEntry("c_double", -1e300)
        .containsEntry("c_timestamp", LocalDateTime.of(1900, 1, 1, 0, 0, 0, 500_000_000)) // before the epoch
        .containsEntry("c_numeric", new BigDecimal("0.0001"))
        .containsEntry("c_numeric_var", "123456789012345678901234567890.5")
        .containsEntry("c_bytea", ByteBuffer.allocate(0))
        .containsEntry("c_text_array", java.util.Arrays.asList(null, ""));
  }

  @Test
  void deletesCarryOnlyTheKeyTombstonesAreSkippedAndTruncatesHaveNoKey() {
    List<Decoded> decoded = TYPES.stream().map(r -> decoder.decode(r, null)).toList();
    ChangeEvent delete = decoded.stream().filter(d -> d instanceof ChangeEvent e && e.op() == Op.DELETE)
        .map(d -> (ChangeEvent) d).findFirst().orElseThrow();
    assertThat(delete.key()).containsExactly(Map.entry("id", 2L));
    assertThat(delete.values()).isNull();
    assertThat(decoded).filteredOn(d -> d instanceof Decoded.Skip).hasSize(1);

    ChangeEvent truncate = event(TOAST.get(TOAST.size() - 1));
    assertThat(truncate.op()).isEqualTo(Op.TRUNCATE);
    assertThat(truncate.lsn()).isPositive();
  }

  @Test
  void toastPlaceholdersAreUnchangedAndAKeyChangeNamesTheOldKey() {
    ChangeEvent update = event(TOAST.get(1));
    assertThat(byName(update)).containsEntry("big", Unchanged.VALUE).containsEntry("small", 2);
    ChangeEvent rekeyed = TOAST.stream().map(r -> decoder.decode(r, null))
        .filter(d -> d instanceof ChangeEvent e && e.previousKey() != null)
        .map(d -> (ChangeEvent) d).findFirst().orElseThrow();
    assertThat(rekeyed.key()).containsExactly(Map.entry("id", 7));
    assertThat(rekeyed.previousKey()).containsExactly(Map.entry("id", 1));
    assertThat(byName(rekeyed)).containsEntry("big", Unchanged.VALUE);
  }

  @Test
  void withoutSchemaTheTableSchemaDrivesTheSameValues() {
    ChangeEvent withSchema = event(TYPES.get(0));
    Schema table = new Schema(withSchema.schema().fields().stream()
        .map(f -> Types.NestedField.optional(withSchema.schema().position(f.name()) + 1, f.name(), f.type()))
        .toList());
    RawRecord schemaless = stripSchemas(TYPES.get(0));
    Decoded d = decoder.decode(schemaless, table);
    assertThat(d).isInstanceOf(ChangeEvent.class);
    assertThat(byName((ChangeEvent) d)).isEqualTo(byName(withSchema));
  }

  private ChangeEvent event(RawRecord r) {
    Decoded d = decoder.decode(r, null);
    assertThat(d).as("decoding %s", r).isInstanceOf(ChangeEvent.class);
    return (ChangeEvent) d;
  }

  private static Map<String, Object> byName(ChangeEvent e) {
    Map<String, Object> out = new HashMap<>();
    for (int i = 0; i < e.values().length; i++) {
      out.put(e.schema().fields().get(i).name(), e.values()[i]);
    }
    return out;
  }

  private static RawRecord stripSchemas(RawRecord r) {
    try {
      byte[] key = JSON.writeValueAsBytes(JSON.readTree(r.key()).get("payload"));
      byte[] value = JSON.writeValueAsBytes(JSON.readTree(r.value()).get("payload"));
      return new RawRecord(r.topic(), r.partition(), r.offset(), key, value);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] bytes(JsonNode n) {
    return n == null || n.isNull() ? null : n.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
