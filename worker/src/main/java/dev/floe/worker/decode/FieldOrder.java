package dev.floe.worker.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The names of an object's fields in the order its writer lists them, each encoded once as JSON.
 * Reading the next field, the parser compares the input's bytes with the name expected there
 * ({@link JsonParser#nextFieldName(com.fasterxml.jackson.core.SerializableString)}) instead of
 * decoding the name and looking it up in its symbol table: name handling was ~15% of decoding an
 * {@code orders} record (a Debezium payload has ~30 names: its envelope, its source block, its row).
 * A field out of order, escaped differently or unknown is read by name as before, so the result
 * never depends on the order, only the speed does.
 */
final class FieldOrder {
  /** {@link #next}: the parser is not at a field name (the object's end, or malformed input). */
  static final int END = -2;
  /** {@link #next}: a field whose name is not among these. */
  static final int OTHER = -1;

  private final SerializedString[] encoded;
  private final Map<String, Integer> positions = new HashMap<>();

  FieldOrder(List<String> names) {
    this.encoded = new SerializedString[names.size()];
    for (int i = 0; i < names.size(); i++) {
      encoded[i] = new SerializedString(names.get(i));
      positions.put(names.get(i), i); // a name listed twice is found at its last place, as a map read by name finds it
    }
  }

  static FieldOrder of(String... names) {
    return new FieldOrder(List.of(names));
  }

  /** The position of {@code name} (its last, if listed twice), or {@link #OTHER}. */
  int position(String name) {
    return positions.getOrDefault(name, OTHER);
  }

  /**
   * Advances the parser, inside an object, to its next token: the position of that field's name,
   * {@link #OTHER} for a name not listed, or {@link #END} when the token is not a field name.
   *
   * @param expected the position to compare the input with first: the one after the last field read
   */
  int next(JsonParser p, int expected) throws IOException {
    if (expected >= 0 && expected < encoded.length) {
      if (p.nextFieldName(encoded[expected])) {
        return expected;
      }
    } else {
      p.nextToken();
    }
    return p.currentToken() == JsonToken.FIELD_NAME ? position(p.currentName()) : END;
  }
}
