package dev.floe.worker.decode.avro;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Where a record's key or value names its writer schema, told per record: Apicurio's headers
 * ({@code apicurio.value.globalId} or {@code apicurio.value.contentId}, an 8-byte big-endian id,
 * and the Avro bytes plain in the payload), or the Confluent wire format (magic byte 0, a 4-byte
 * big-endian id, then the Avro bytes), which Apicurio's serializers write by default too.
 */
public final class WireFormat {
  public static final String VALUE_GLOBAL_ID = "apicurio.value.globalId";
  public static final String VALUE_CONTENT_ID = "apicurio.value.contentId";
  public static final String VALUE_ENCODING = "apicurio.value.encoding";
  public static final String KEY_GLOBAL_ID = "apicurio.key.globalId";
  public static final String KEY_CONTENT_ID = "apicurio.key.contentId";
  public static final String KEY_ENCODING = "apicurio.key.encoding";
  static final byte MAGIC = 0;
  static final int CONFLUENT_HEADER = 5;

  private WireFormat() {}

  /**
   * A record part's writer schema id and where its Avro bytes start.
   *
   * @param json whether the Avro is in its JSON encoding (Apicurio's {@code encoding: JSON} header)
   */
  public record Framed(SchemaId id, int offset, boolean json) {}

  /** A record part that names no writer schema; the message says what it looks like instead. */
  public static final class NotFramedException extends RuntimeException {
    NotFramedException(String message) {
      super(message, null, false, false);
    }
  }

  /** The value's frame. */
  public static Framed value(byte[] bytes, Map<String, byte[]> headers) {
    return frame("value", bytes, headers, VALUE_GLOBAL_ID, VALUE_CONTENT_ID, VALUE_ENCODING);
  }

  /** The key's frame. */
  public static Framed key(byte[] bytes, Map<String, byte[]> headers) {
    return frame("key", bytes, headers, KEY_GLOBAL_ID, KEY_CONTENT_ID, KEY_ENCODING);
  }

  /** A Confluent frame, or null when the bytes do not start with one (a key header: no headers of its own). */
  public static Framed confluent(byte[] bytes) {
    if (bytes.length >= CONFLUENT_HEADER && bytes[0] == MAGIC) {
      return new Framed(SchemaId.confluent(Integer.toUnsignedLong(readInt(bytes, 1))), CONFLUENT_HEADER, false);
    }
    return null;
  }

  private static Framed frame(String what, byte[] bytes, Map<String, byte[]> headers, String global, String content, String encoding) {
    boolean json = isJsonEncoding(headers.get(encoding));
    byte[] id = headers.get(global);
    if (id != null) {
      return new Framed(SchemaId.globalId(headerId(global, id)), 0, json);
    }
    id = headers.get(content);
    if (id != null) {
      return new Framed(SchemaId.contentId(headerId(content, id)), 0, json);
    }
    Framed framed = confluent(bytes);
    if (framed != null) {
      return framed;
    }
    String looks = bytes.length > 0 && (bytes[0] == '{' || bytes[0] == '[') ? " (it looks like JSON: is source.format json?)" : "";
    throw new NotFramedException(what + " names no writer schema: it neither starts with magic byte 0 and a 4-byte schema id"
        + " (" + (bytes.length < CONFLUENT_HEADER ? bytes.length + " bytes" : "first byte " + (bytes[0] & 0xff)) + ") nor has an "
        + global + " or " + content + " header" + looks);
  }

  private static long headerId(String header, byte[] value) {
    if (value.length != 8) {
      throw new NotFramedException("header " + header + " has " + value.length + " bytes; Apicurio writes an 8-byte big-endian id");
    }
    long id = 0;
    for (byte b : value) {
      id = (id << 8) | (b & 0xff);
    }
    return id;
  }

  private static boolean isJsonEncoding(byte[] header) {
    return header != null && new String(header, StandardCharsets.UTF_8).strip().equalsIgnoreCase("JSON");
  }

  private static int readInt(byte[] b, int at) {
    return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
  }
}
