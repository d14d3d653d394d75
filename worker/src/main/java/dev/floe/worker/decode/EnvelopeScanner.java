package dev.floe.worker.decode;

import java.nio.charset.StandardCharsets;

/**
 * Finds where the schema and the payload of a JsonConverter envelope
 * ({@code {"schema":{...},"payload":{...}}}, the layout JsonConverter writes) lie in a record's
 * bytes without tokenizing the schema: a brace scan that knows JSON strings. The schema is most of
 * each record and the same for every record of a table, so tokenizing it was most of the decoding
 * time. Anything else returns null, and the decoder takes Jackson's general path.
 */
final class EnvelopeScanner {
  private static final byte[] SCHEMA = "\"schema\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PAYLOAD = "\"payload\"".getBytes(StandardCharsets.US_ASCII);

  /** Byte ranges [start, end) of the schema object and the payload object. */
  record Spans(int schemaStart, int schemaEnd, int payloadStart, int payloadEnd) {}

  private EnvelopeScanner() {}

  static Spans scan(byte[] b) {
    int i = skipWhitespace(b, 0);
    if (i >= b.length || b[i] != '{') {
      return null;
    }
    i = field(b, skipWhitespace(b, i + 1), SCHEMA);
    if (i < 0 || i >= b.length || b[i] != '{') {
      return null;
    }
    int schemaStart = i;
    int schemaEnd = endOfObject(b, schemaStart);
    if (schemaEnd < 0) {
      return null;
    }
    i = skipWhitespace(b, schemaEnd);
    if (i >= b.length || b[i] != ',') {
      return null;
    }
    i = field(b, skipWhitespace(b, i + 1), PAYLOAD);
    if (i < 0 || i >= b.length || b[i] != '{') {
      return null;
    }
    int payloadStart = i;
    int payloadEnd = endOfObject(b, payloadStart);
    if (payloadEnd < 0) {
      return null;
    }
    i = skipWhitespace(b, payloadEnd);
    if (i >= b.length || b[i] != '}' || skipWhitespace(b, i + 1) != b.length) {
      return null;
    }
    return new Spans(schemaStart, schemaEnd, payloadStart, payloadEnd);
  }

  /**
   * Index just past the JSON object that opens at {@code start}, or -1 when it does not close.
   * Braces inside strings do not count; a backslash escapes the byte after it. Bytes of multi-byte
   * UTF-8 characters are all 0x80 or above, so they never look like a quote, a backslash or a brace.
   */
  static int endOfObject(byte[] b, int start) {
    int depth = 0;
    for (int i = start; i < b.length; i++) {
      byte c = b[i];
      if (c == '"') {
        for (i++; i < b.length && b[i] != '"'; i++) {
          if (b[i] == '\\') {
            i++;
          }
        }
      } else if (c == '{' || c == '[') {
        depth++;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) {
          return c == '}' ? i + 1 : -1;
        }
      }
    }
    return -1;
  }

  /** After {@code "name"} and its colon at {@code i}: the index of the value, or -1. */
  private static int field(byte[] b, int i, byte[] name) {
    if (i + name.length > b.length) {
      return -1;
    }
    for (int k = 0; k < name.length; k++) {
      if (b[i + k] != name[k]) {
        return -1;
      }
    }
    i = skipWhitespace(b, i + name.length);
    return i < b.length && b[i] == ':' ? skipWhitespace(b, i + 1) : -1;
  }

  /** The index of the first byte from {@code i} on that is not JSON whitespace ({@code b.length} if none). */
  static int skipWhitespace(byte[] b, int i) {
    while (i < b.length && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) {
      i++;
    }
    return i;
  }
}
