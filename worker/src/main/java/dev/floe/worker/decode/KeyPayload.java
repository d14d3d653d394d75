package dev.floe.worker.decode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.floe.worker.fold.Unchanged;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The one shape nearly every key payload has, {@code {"id":4011}} or {@code {"uuid":"a0ee…"}}, read
 * by comparing bytes: one column, an integer or a plain ASCII string, no whitespace, as
 * JsonConverter writes it. Creating a Jackson parser for it was a third of what decoding allocated
 * (a record's payload needs one parser, its key a second). Anything else (an escape, a non-ASCII
 * byte, a float, a leading zero, a second column, a value the column's codec refuses) gives null
 * and the streamed read decides, with the value read as Jackson reads it (an int or a long node, a
 * text node), so both reach the same key.
 */
final class KeyPayload {
  /** Digits that always fit a long: longer integers are left to Jackson. */
  private static final int MAX_DIGITS = 18;

  private KeyPayload() {}

  /** The key columns of the payload in {@code bytes[offset, offset + length)}, or null to read it the general way. */
  static Map<String, Object> oneColumnOrNull(byte[] bytes, int offset, int length, EventSchema rowSchema) {
    int end = offset + length;
    if (length < 7 || bytes[offset] != '{' || bytes[offset + 1] != '"' || bytes[end - 1] != '}') {
      return null;
    }
    int nameStart = offset + 2;
    int i = nameStart;
    while (i < end && plainAscii(bytes[i])) {
      i++;
    }
    if (i == nameStart || i + 2 >= end || bytes[i] != '"' || bytes[i + 1] != ':') {
      return null;
    }
    int column = rowSchema.positionOfAscii(bytes, nameStart, i - nameStart);
    if (column < 0) {
      return null;
    }
    JsonNode node = value(bytes, i + 2, end - 1);
    if (node == null) {
      return null;
    }
    EventField field = rowSchema.fields().get(column);
    Object v;
    try {
      v = DebeziumDecoder.readValue(field, node);
    } catch (RuntimeException e) {
      return null; // the general read words the rejection
    }
    return v == null || v == Unchanged.VALUE ? null : Map.of(field.name(), v);
  }

  /** The JSON value spanning exactly {@code [from, to)} when it is a plain integer or string; else null. */
  private static JsonNode value(byte[] b, int from, int to) {
    if (from >= to) {
      return null;
    }
    if (b[from] == '"') {
      if (to - from < 2 || b[to - 1] != '"') {
        return null;
      }
      for (int i = from + 1; i < to - 1; i++) {
        if (!plainAscii(b[i])) {
          return null;
        }
      }
      return TextNode.valueOf(new String(b, from + 1, to - from - 2, StandardCharsets.ISO_8859_1));
    }
    boolean negative = b[from] == '-';
    int first = negative ? from + 1 : from;
    int digits = to - first;
    if (digits < 1 || digits > MAX_DIGITS || (b[first] == '0' && digits > 1)) {
      return null; // none, too long for a long, or a leading zero JSON does not allow
    }
    long v = 0;
    for (int i = first; i < to; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        return null;
      }
      v = v * 10 + d;
    }
    v = negative ? -v : v;
    return v == (int) v ? IntNode.valueOf((int) v) : LongNode.valueOf(v);
  }

  /** A printable ASCII byte that is neither a quote nor a backslash: a string byte that means itself. */
  private static boolean plainAscii(byte c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  }
}
