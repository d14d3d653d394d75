package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** A key payload read by comparing bytes is read as the streamed Jackson reader reads it, or left to it. */
class KeyPayloadTest {
  private static final ObjectMapper JSON = DebeziumDecoder.JSON; // the decoder's own reader
  private static final EventSchema ROW = new EventSchema(List.of(
      field("id", Types.LongType.get()), field("n", Types.IntegerType.get()), field("s", Types.StringType.get()),
      field("u", Types.UUIDType.get())));

  @Property(tries = 2000)
  void aPayloadReadByItsBytesIsReadAsJacksonReadsIt(@ForAll("payloads") String payload) {
    byte[] bytes = ("xx" + payload + "yy").getBytes(StandardCharsets.UTF_8); // a payload inside a larger record
    int length = bytes.length - 4;

    Map<String, Object> fast = KeyPayload.oneColumnOrNull(bytes, 2, length, ROW);

    if (fast != null) {
      assertThat(fast).isEqualTo(StreamedPayload.keyColumnsOrNull(JSON, bytes, 2, length, ROW));
    }
  }

  @Example
  void theCommonShapesAreReadByTheirBytes() {
    UUID u = UUID.randomUUID();
    assertThat(read("{\"id\":4011}")).isEqualTo(Map.of("id", 4011L));
    assertThat(read("{\"id\":-9223372036854775}")).isEqualTo(Map.of("id", -9223372036854775L));
    assertThat(read("{\"n\":-2147483648}")).isEqualTo(Map.of("n", Integer.MIN_VALUE));
    assertThat(read("{\"s\":\"order-17\"}")).isEqualTo(Map.of("s", "order-17"));
    assertThat(read("{\"u\":\"" + u + "\"}")).isEqualTo(Map.of("u", u));
  }

  @Example
  void anythingBeyondThemIsLeftToJackson() {
    for (String payload : List.of("{\"id\":01}", "{\"id\":1.0}", "{\"id\":1e3}", "{\"id\": 1}", "{\"id\":1,\"n\":2}",
        "{\"s\":\"caf\u00e9\"}", "{\"s\":\"a\\\"b\"}", "{\"id\":null}", "{\"x\":1}", "{\"id\":9223372036854775807}",
        "{\"s\":\"__debezium_unavailable_value\"}", "{\"id\":\"1\"}")) {
      assertThat(read(payload)).as(payload).isNull();
    }
  }

  @Provide
  Arbitrary<String> payloads() {
    return payloads(Arbitraries.of("id", "n", "s", "u", "x", "ID", "", "i\\u0064", "id "));
  }

  /**
   * Key payloads near the one-column shape read by comparing bytes, with the given column names:
   * integers of every length and sign, leading zeros, floats, strings with escapes, non-ASCII and
   * control characters, UUIDs, the placeholder, other JSON values, whitespace, a second column.
   */
  static Arbitrary<String> payloads(Arbitrary<String> names) {
    Arbitrary<String> numbers = Arbitraries.oneOf(
        Arbitraries.longs().map(String::valueOf), Arbitraries.integers().map(String::valueOf),
        Arbitraries.strings().withChars("0123456789-+.eE").ofMinLength(1).ofMaxLength(22),
        Arbitraries.of("0", "-0", "00", "01", "-01", "2147483647", "2147483648", "-2147483648", "-2147483649",
            "999999999999999999", "-999999999999999999", "1000000000000000000", "9223372036854775807", "9223372036854775808",
            "1e3", "1.5", "-"));
    Arbitrary<String> strings = Arbitraries.oneOf(
        Arbitraries.strings().ascii().ofMaxLength(12), Arbitraries.strings().withChars("1a\\\"\u00e9\u0001 -").ofMaxLength(6),
        Arbitraries.create(UUID::randomUUID).map(UUID::toString), Arbitraries.of("__debezium_unavailable_value", ""))
        .map(v -> "\"" + v + "\"");
    Arbitrary<String> values = Arbitraries.oneOf(numbers, strings, Arbitraries.of("null", "true", "{}", "[1]", "\"a\" "));
    return Combinators.combine(names, values, Arbitraries.of("", "", "", " ", ",\"id\":1", "}"))
        .as((name, value, tail) -> "{\"" + name + "\":" + value + tail + "}");
  }

  private static Map<String, Object> read(String payload) {
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    return KeyPayload.oneColumnOrNull(bytes, 0, bytes.length, ROW);
  }

  private static EventField field(String name, Type type) {
    return new EventField(name, type, false, ValueCodecs.forIcebergType(type));
  }
}
