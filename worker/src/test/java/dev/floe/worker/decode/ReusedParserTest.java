package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.iceberg.types.Types;

/**
 * A payload read by the thread's reused parser, after any payloads before it (whole, cut short,
 * followed by garbage or whitespace, of other shapes), reads as a parser made for it alone reads it.
 */
class ReusedParserTest {
  private static final ObjectMapper JSON = DebeziumDecoder.JSON; // the decoder's own reader
  private static final EventSchema ROW = new EventSchema(List.of(
      new EventField("id", Types.LongType.get(), false, ValueCodecs.LONG),
      new EventField("city", Types.StringType.get(), true, ValueCodecs.STRING),
      new EventField("n", Types.IntegerType.get(), true, ValueCodecs.INT)));

  @Property(tries = 400)
  void aPayloadReadsAsItDoesAlone(@ForAll("sequences") List<String> payloads) {
    // every payload of the sequence, held in a larger array as a batch's record bodies are
    for (String payload : payloads) {
      byte[] body = ("xx" + payload + "yy").getBytes(StandardCharsets.UTF_8);
      int length = body.length - 4;

      String reused = shown(StreamedPayload.read(PayloadParsers.reused(), JSON, body, 2, length, image -> ROW));
      String alone = shown(StreamedPayload.read(PayloadParsers.fresh(), JSON, body, 2, length, image -> ROW));

      assertThat(reused).as("%s after %s", payload, payloads).isEqualTo(alone);
    }
  }

  @Example
  void oneParserReadsPayloadAfterPayloadAndIsReplacedInTime() {
    // given more payloads than one parser reads, some cut short or followed by garbage, some by whitespace
    List<String> payloads = new ArrayList<>();
    int whole = 0;
    for (int i = 0; i < PayloadParsers.PAYLOADS_PER_PARSER * 2 + 10; i++) {
      String p = "{\"before\":null,\"after\":{\"id\":" + i + ",\"city\":\"c" + i % 7 + "\",\"n\":" + i % 3
          + "},\"source\":{\"lsn\":" + (1000 + i) + "},\"op\":\"c\"}";
      if (i % 97 == 0) {
        payloads.add(p.substring(0, p.length() / 2));
      } else if (i % 89 == 0) {
        payloads.add(p + "]");
      } else {
        payloads.add(i % 83 == 0 ? p + " \n" : p);
        whole++;
      }
    }

    // when each is read on one thread
    int read = 0;
    for (String payload : payloads) {
      byte[] b = payload.getBytes(StandardCharsets.UTF_8);
      StreamedPayload.Read r = StreamedPayload.read(PayloadParsers.reused(), JSON, b, 0, b.length, image -> ROW);

      // then each reads as it does alone
      assertThat(shown(r)).isEqualTo(shown(StreamedPayload.read(PayloadParsers.fresh(), JSON, b, 0, b.length, image -> ROW)));
      read += r == null ? 0 : 1;
    }
    // and every whole payload was read, the broken ones left to the general path
    assertThat(read).isEqualTo(whole);
  }

  @Provide
  Arbitrary<List<String>> sequences() {
    return payloads().list().ofMinSize(1).ofMaxSize(40);
  }

  private static Arbitrary<String> payloads() {
    Arbitrary<String> whole = Combinators.combine(
        Arbitraries.of("c", "u", "d", "r", "t", "x"),
        rows(), rows(),
        Arbitraries.oneOf(Arbitraries.longs().map(String::valueOf), Arbitraries.of("null", "\"7\"", "1e3", "99999999999999999999")),
        Arbitraries.of("", ",\"ts_ms\":1700000000000", ",\"transaction\":null", ",\"op\":\"d\"", ",\"extra\":[1,{\"a\":\"}\"}]"))
        .as((op, before, after, lsn, tail) -> "{\"before\":" + before + ",\"after\":" + after + ",\"source\":{\"version\":\"3.6\",\"lsn\":" + lsn
            + ",\"txId\":5},\"op\":\"" + op + "\"" + tail + "}");
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, whole),
        net.jqwik.api.Tuple.of(1, Combinators.combine(whole, Arbitraries.integers().between(0, 200)).as((w, cut) -> w.substring(0, Math.min(cut, w.length())))),
        net.jqwik.api.Tuple.of(1, Combinators.combine(whole, Arbitraries.of(" ", "\n\t ", "}", "{", "x", " {\"op\":\"c\"}", "\"", "]")).as((w, t) -> w + t)),
        net.jqwik.api.Tuple.of(1, Arbitraries.of("{}", "{\"op\":\"c\"}", "{\"op\":\"c\"", "{\"after\":{\"id\":\"1\\u0000\"},\"op\":\"c\"}",
            "{\"after\":{\"city\":\"\\ud800\"},\"op\":\"c\"}", "{\"a\":NaN,\"op\":\"u\"}")));
  }

  private static Arbitrary<String> rows() {
    Arbitrary<String> city = Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(12).map(ReusedParserTest::quoted),
        Arbitraries.of("null", "\"__debezium_unavailable_value\"", "5", "\"a\\\"b\\\\c\""));
    Arbitrary<String> row = Combinators.combine(Arbitraries.longs(), city, Arbitraries.oneOf(Arbitraries.integers().map(String::valueOf),
            Arbitraries.of("null", "2147483648", "1.5", "[1]")))
        .as((id, c, n) -> "{\"id\":" + id + ",\"city\":" + c + ",\"n\":" + n + "}");
    return Arbitraries.oneOf(row, Arbitraries.of("null", "{}", "[]", "{\"other\":{\"id\":1}}"));
  }

  private static String quoted(String s) {
    try {
      return JSON.writeValueAsString(s);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String shown(StreamedPayload.Read r) {
    return r == null ? "general path" : r.op() + " " + r.lsn() + " " + Arrays.deepToString(r.before()) + " " + Arrays.deepToString(r.after());
  }
}
