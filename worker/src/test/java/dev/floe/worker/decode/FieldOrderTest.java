package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Reading an object's fields by comparing their bytes with the expected names finds each field
 * where reading its name finds it, whatever the order, spelling or escaping of the names.
 */
class FieldOrderTest {
  private static final ObjectMapper JSON = DebeziumDecoder.JSON;
  private static final List<String> NAMES = List.of("before", "after", "source", "op", "ts_ms", "é", "a\"b");
  private static final FieldOrder ORDER = new FieldOrder(NAMES);

  @Property(tries = 1000)
  void aFieldIsFoundWhereItsNameSaysWhateverTheOrder(@ForAll("objects") String object) throws IOException {
    assertThat(byBytes(object)).as(object).isEqualTo(byName(object));
  }

  @Example
  void fieldsInTheirOrderAreFoundOneAfterAnother() throws IOException {
    // given an object of the expected names in their order, then one not listed
    String object = "{\"before\":null,\"after\":{\"x\":1},\"source\":{\"lsn\":3},\"op\":\"c\",\"ts_ms\":1,\"ts_us\":2}";

    // when its fields are read, then each is found at its position, the unlisted one as OTHER
    assertThat(byBytes(object)).containsExactly(0, 1, 2, 3, 4, FieldOrder.OTHER, FieldOrder.END);
  }

  /** Positions of the fields, read by {@link FieldOrder#next} (values skipped), ending with END. */
  private static List<Integer> byBytes(String object) throws IOException {
    List<Integer> found = new ArrayList<>();
    try (JsonParser p = JSON.createParser(object.getBytes(StandardCharsets.UTF_8))) {
      p.nextToken();
      int expected = 0;
      for (int at = ORDER.next(p, expected); ; at = ORDER.next(p, expected)) {
        found.add(at);
        if (at == FieldOrder.END) {
          return found;
        }
        p.nextToken();
        p.skipChildren();
        expected = at >= 0 ? at + 1 : expected;
      }
    }
  }

  /** The reference: each field's name read and looked up. */
  private static List<Integer> byName(String object) throws IOException {
    List<Integer> found = new ArrayList<>();
    try (JsonParser p = JSON.createParser(object.getBytes(StandardCharsets.UTF_8))) {
      p.nextToken();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        found.add(ORDER.position(p.currentName()));
        p.nextToken();
        p.skipChildren();
      }
      found.add(FieldOrder.END);
      return found;
    }
  }

  @Provide
  Arbitrary<String> objects() {
    Arbitrary<String> name = Arbitraries.oneOf(
        Arbitraries.of(NAMES).map(FieldOrderTest::quoted),
        Arbitraries.of(NAMES).map(FieldOrderTest::escapedFirst), // the same name spelled another way
        Arbitraries.of("\"sourc\"", "\"sources\"", "\"\"", "\"op \"", "\"b\\u0065fore\"", "\"ts_m\""));
    Arbitrary<String> value = Arbitraries.of("null", "1", "\"x\"", "{\"a\":[1,{\"op\":2}]}", "[]", "\"op\"");
    Arbitrary<String> field = net.jqwik.api.Combinators.combine(name, value).as((n, v) -> n + ":" + v);
    return field.list().ofMaxSize(12).map(fields -> "{" + String.join(",", fields) + "}");
  }

  private static String quoted(String name) {
    return "\"" + name.replace("\"", "\\\"") + "\"";
  }

  /** The name with its first character written as a \\u escape. */
  private static String escapedFirst(String name) {
    return "\"" + String.format("\\u%04x", (int) name.charAt(0)) + name.substring(1).replace("\"", "\\\"") + "\"";
  }
}
