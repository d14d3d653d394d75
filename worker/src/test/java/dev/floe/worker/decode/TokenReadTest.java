package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.fold.Unchanged;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Base64;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.iceberg.types.Types;

/**
 * A value read from its token ({@link StreamedPayload#read}) is the value its column's codec reads
 * from the token's node, and a value the codec refuses is refused either way.
 */
class TokenReadTest {
  private static final ObjectMapper JSON = DebeziumDecoder.JSON; // the decoder's own reader
  private static final List<EventField> COLUMNS = List.of(
      new EventField("s", Types.StringType.get(), true, ValueCodecs.STRING),
      new EventField("l", Types.LongType.get(), true, ValueCodecs.LONG),
      new EventField("i", Types.IntegerType.get(), true, ValueCodecs.INT),
      new EventField("t", Types.TimestampType.withoutZone(), true, ValueCodecs.TIMESTAMP_MICROS),
      new EventField("d", Types.DateType.get(), true, ValueCodecs.EPOCH_DAYS),
      new EventField("m", Types.DecimalType.of(12, 2), true, ValueCodecs.decimalBytes(12, 2)),
      new EventField("n", Types.DecimalType.of(4, 1), true, ValueCodecs.decimalBytes(4, 1)));

  @Property(tries = 3000)
  void aTokenReadsAsItsNodeDoes(@ForAll("values") String value, @ForAll("columns") EventField column) throws Exception {
    Outcome fromToken = outcome(() -> {
      try (JsonParser p = JSON.createParser(value)) {
        p.nextToken();
        return StreamedPayload.read(JSON, p, column);
      }
    });
    Outcome fromNode = outcome(() -> DebeziumDecoder.readValue(column, JSON.readTree(value)));

    assertThat(fromToken).as("%s into %s", value, column.name()).isEqualTo(fromNode);
  }

  @Example
  void theCommonValuesAreReadFromTheirTokens() throws Exception {
    assertThat(read("\"Lisbon\"", 0)).isEqualTo("Lisbon");
    assertThat(read("\"__debezium_unavailable_value\"", 0)).isSameAs(Unchanged.VALUE);
    assertThat(read("4011", 1)).isEqualTo(4011L);
    assertThat(read("-7", 2)).isEqualTo(-7);
    assertThat(read("1764406800000000", 3)).isEqualTo(LocalDateTime.of(2025, 11, 29, 9, 0));
    assertThat(read("null", 1)).isNull();
    assertThat(read("\"AYag\"", 5)).isEqualTo(new BigDecimal("1000.00")); // 100000 as Connect writes it
    assertThat(read("\"/w==\"", 5)).isEqualTo(new BigDecimal("-0.01"));
  }

  /** Base64 as Connect writes a decimal's unscaled bytes (any length, any sign), and text near it that is not quite that. */
  private static Arbitrary<String> base64Decimals() {
    Arbitrary<String> encoded = Arbitraries.bytes().array(byte[].class).ofMaxSize(10).map(b -> Base64.getEncoder().encodeToString(b));
    Arbitrary<String> nearly = Arbitraries.oneOf(
        encoded.map(e -> e.replace("=", "")), // unpadded
        encoded.map(e -> e.isEmpty() ? "=" : e.substring(1)), // cut
        encoded.map(e -> e.replace('A', '-')), // another alphabet
        encoded.map(e -> e.length() < 4 ? e : e.substring(0, e.length() - 2) + (e.endsWith("==") ? "B=" : "BB")), // leftover bits
        Arbitraries.strings().withChars("AB/+=w9é").ofMaxLength(12));
    return Arbitraries.oneOf(encoded, nearly).map(e -> JSON.valueToTree(e).toString());
  }

  @Provide
  Arbitrary<EventField> columns() {
    return Arbitraries.of(COLUMNS);
  }

  /** JSON values of every kind near the fast reads: integers of every width, strings with escapes and surrogates, the placeholder. */
  @Provide
  Arbitrary<String> values() {
    return Arbitraries.oneOf(
        Arbitraries.longs().map(String::valueOf),
        Arbitraries.integers().map(String::valueOf),
        Arbitraries.of("0", "-0", "2147483647", "2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
            "-9223372036854775809", "1e3", "1.5", "-0.0", "NaN", "true", "false", "null", "{}", "[1]", "[\"__debezium_unavailable_value\"]",
            "\"__debezium_unavailable_value\"", "\"X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==\"", "\"\\ud800\"", "\"a\\ud83d\\ude00b\"",
            "\"\"", "\"12\"", "253402300800000000", "-62135596800000001"),
        Arbitraries.strings().withChars("ab1é\\\"\u0001 ").ofMaxLength(8).map(s -> JSON.valueToTree(s).toString()),
        base64Decimals());
  }

  private static Object read(String value, int column) throws Exception {
    try (JsonParser p = JSON.createParser(value)) {
      p.nextToken();
      return StreamedPayload.read(JSON, p, COLUMNS.get(column));
    }
  }

  /** A read's value, or that it was refused. */
  private record Outcome(Object value, boolean refused) {}

  private interface Read {
    Object get() throws Exception;
  }

  private static Outcome outcome(Read read) {
    try {
      return new Outcome(read.get(), false);
    } catch (Exception e) {
      return new Outcome(null, true);
    }
  }
}
