package dev.floe.worker.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.floe.worker.fold.Unchanged;
import java.io.IOException;
import java.util.function.Function;

/**
 * A Debezium payload read token by token, without building its tree: the op, the source's LSN, and
 * each row image decoded straight into values. Building the tree (a map per object, the 15-field
 * source block included) was most of what decoding cost once schemas were no longer parsed. Only
 * the well-formed common shape is read here: anything else (a truncate, a missing or odd field, a
 * value its codec refuses) returns null, and the general path decides, so both paths reach the
 * same decision on every record (the fuzz target checks this).
 */
final class StreamedPayload {
  /** The parts of a payload the decoder needs; an image is null when absent or JSON null. */
  record Read(String op, Long lsn, Object[] before, Object[] after) {}

  private StreamedPayload() {}

  /**
   * @param rowSchema the schema of the row image named "before" or "after"
   * @return the payload's parts, or null to leave the record to the general path
   */
  static Read read(ObjectMapper json, byte[] bytes, int offset, int length, Function<String, EventSchema> rowSchema) {
    return read(PayloadParsers.reused(), json, bytes, offset, length, rowSchema);
  }

  /** {@link #read(ObjectMapper, byte[], int, int, Function)} with the parser from {@code parsers}. */
  static Read read(PayloadParsers parsers, ObjectMapper json, byte[] bytes, int offset, int length,
      Function<String, EventSchema> rowSchema) {
    JsonParser p = null;
    try {
      p = parsers.begin(json, bytes, offset, length);
      Read read = readObject(json, p, rowSchema);
      if (read == null) {
        return null; // abandoned below: what follows the object was not looked at
      }
      JsonParser done = p;
      p = null; // from here endsCleanly keeps the parser or closes it
      return parsers.endsCleanly(done, bytes, offset, length) ? read : null;
    } catch (IOException | RuntimeException e) {
      return null; // the general path reads it again and words the rejection
    } finally {
      if (p != null) {
        parsers.abandon(p);
      }
    }
  }

  /** A payload's fields as Debezium 2 and 3 list them; those read here first. */
  private static final FieldOrder ENVELOPE = FieldOrder.of("before", "after", "source", "transaction", "op", "ts_ms", "ts_us", "ts_ns");
  private static final int BEFORE = ENVELOPE.position("before");
  private static final int AFTER = ENVELOPE.position("after");
  private static final int SOURCE = ENVELOPE.position("source");
  private static final int OP = ENVELOPE.position("op");
  /** The PostgreSQL connector's source block as Debezium 2 and 3 list it: only the LSN is read. */
  private static final FieldOrder SOURCE_BLOCK = FieldOrder.of("version", "connector", "name", "ts_ms", "snapshot", "db", "sequence",
      "ts_us", "ts_ns", "schema", "table", "txId", "lsn", "xmin", "origin", "origin_lsn");
  private static final int LSN = SOURCE_BLOCK.position("lsn");

  /** The payload's root object read to its end; null (the parser left at that end) when it is not the common shape. */
  private static Read readObject(ObjectMapper json, JsonParser p, Function<String, EventSchema> rowSchema) throws IOException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw new IllegalStateException("not an object");
    }
    String op = null;
    Long lsn = null;
    Object[] before = null;
    Object[] after = null;
    int expected = 0;
    for (int field = ENVELOPE.next(p, expected); field != FieldOrder.END; field = ENVELOPE.next(p, expected)) {
      JsonToken value = p.nextToken();
      expected = field >= 0 ? field + 1 : expected;
      if (field == OP) {
        op = value == JsonToken.VALUE_STRING ? p.getText() : null; // a later duplicate wins, as in a tree
      } else if (field == BEFORE) {
        before = image(json, p, value, () -> rowSchema.apply("before"));
      } else if (field == AFTER) {
        after = image(json, p, value, () -> rowSchema.apply("after"));
      } else if (field == SOURCE) {
        lsn = lsn(p, value);
      } else {
        p.skipChildren();
      }
    }
    if (p.currentToken() != JsonToken.END_OBJECT) {
      throw new IllegalStateException("not a closed object");
    }
    return op == null ? null : new Read(op, lsn, before, after);
  }

  /** A row image's values in its schema's order; null for a JSON null; throws (to the general path) for anything else. */
  private static Object[] image(ObjectMapper json, JsonParser p, JsonToken token, java.util.function.Supplier<EventSchema> schema)
      throws IOException {
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (token != JsonToken.START_OBJECT) {
      throw new IllegalStateException("not an object");
    }
    EventSchema s = schema.get();
    FieldOrder columns = s.order();
    Object[] values = new Object[s.fields().size()];
    int expected = 0;
    for (int pos = columns.next(p, expected); pos != FieldOrder.END; pos = columns.next(p, expected)) {
      p.nextToken();
      if (pos < 0) {
        p.skipChildren(); // not a column of the row schema: a tree read would not look at it either
        continue;
      }
      values[pos] = read(json, p, s.fields().get(pos));
      expected = pos + 1;
    }
    return values;
  }

  /**
   * The key columns of a key record's payload read straight into values, as {@link
   * DebeziumDecoder#keyColumns} reads them from the tree (same map, same order, the last of a
   * duplicate name winning); null for anything it would refuse or that is not the common shape
   * (an empty object, a column the row lacks, a null or placeholder, a value its codec refuses),
   * which the tree read then decides and words. Spares each record an object node and a second map.
   */
  static java.util.Map<String, Object> keyColumnsOrNull(ObjectMapper json, byte[] bytes, int offset, int length, EventSchema rowSchema) {
    try (JsonParser p = json.createParser(bytes, offset, length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      String onlyName = null; // most keys are one column: no map until a second name
      Object onlyValue = null;
      java.util.Map<String, Object> columns = null;
      for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
        String name = p.currentName();
        p.nextToken();
        EventField f = rowSchema.field(name);
        if (f == null) {
          return null;
        }
        Object v = DebeziumDecoder.readValue(f, value(json, p));
        if (v == null || v == Unchanged.VALUE) {
          return null;
        }
        if (columns != null) {
          columns.put(name, v);
        } else if (onlyName == null || onlyName.equals(name)) {
          onlyName = name;
          onlyValue = v;
        } else {
          columns = new java.util.LinkedHashMap<>();
          columns.put(onlyName, onlyValue);
          columns.put(name, v);
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null || onlyName == null) {
        return null;
      }
      return columns != null ? columns : java.util.Map.of(onlyName, onlyValue);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The column's value at the parser's current token, as {@link DebeziumDecoder#readValue} reads it
   * from the token's node. The commonest pairs are read from the token itself (no node, no call
   * through the codec): a null; text into a {@link ValueCodecs#STRING} column; an integer into a
   * {@link ValueCodecs#LONG}, {@link ValueCodecs#INT} or {@link ValueCodecs#TIMESTAMP_MICROS} one;
   * base64 of up to eight bytes into a decimal ({@link ValueCodecs.DecimalBytes#fromBase64}).
   * Those codecs read such a node the same way (a test holds them to it); a value they would refuse
   * throws here too, and the general path words the rejection.
   */
  static Object read(ObjectMapper json, JsonParser p, EventField f) throws IOException {
    JsonToken t = p.currentToken();
    ValueCodec codec = f.codec();
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t == JsonToken.VALUE_STRING && codec == ValueCodecs.STRING) {
      String text = p.getText();
      return DebeziumDecoder.isPlaceholder(text) ? Unchanged.VALUE : SharedStrings.shared(UnicodeText.requireValid(text));
    }
    if (t == JsonToken.VALUE_STRING && codec instanceof ValueCodecs.DecimalBytes decimal) {
      java.math.BigDecimal v = decimal.fromBase64(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
      if (v != null) {
        return v;
      }
    }
    if (t == JsonToken.VALUE_NUMBER_INT) {
      JsonParser.NumberType type = p.getNumberType();
      if (codec == ValueCodecs.LONG && type != JsonParser.NumberType.BIG_INTEGER) {
        return p.getLongValue();
      }
      if (codec == ValueCodecs.TIMESTAMP_MICROS && type != JsonParser.NumberType.BIG_INTEGER) {
        return SharedDates.timestampFromMicros(p.getLongValue());
      }
      if (codec == ValueCodecs.INT && type == JsonParser.NumberType.INT) {
        return p.getIntValue();
      }
    }
    return DebeziumDecoder.readValue(f, value(json, p));
  }

  /**
   * The value at the parser's current token, as a tree read gives it. Strings, integers, booleans
   * and nulls are built directly: a tree read sets up a deserialization context per call, which
   * cost more than the value. Anything else (floats, which the mapper reads as decimals; objects;
   * arrays) is read as a tree.
   */
  static JsonNode value(ObjectMapper json, JsonParser p) throws IOException {
    JsonToken t = p.currentToken();
    if (t == null) {
      throw new IOException("no value");
    }
    return switch (t) {
      case VALUE_STRING -> TextNode.valueOf(p.getText());
      case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
        case INT -> IntNode.valueOf(p.getIntValue());
        case LONG -> LongNode.valueOf(p.getLongValue());
        default -> json.readTree(p);
      };
      case VALUE_TRUE -> BooleanNode.TRUE;
      case VALUE_FALSE -> BooleanNode.FALSE;
      case VALUE_NULL -> NullNode.getInstance();
      default -> json.readTree(p);
    };
  }

  /** The source block's LSN when it is an integer that fits a long, as a tree read takes it; else null. */
  private static Long lsn(JsonParser p, JsonToken token) throws IOException {
    if (token != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    Long lsn = null;
    int expected = 0;
    for (int field = SOURCE_BLOCK.next(p, expected); field != FieldOrder.END; field = SOURCE_BLOCK.next(p, expected)) {
      JsonToken value = p.nextToken();
      expected = field >= 0 ? field + 1 : expected;
      if (field == LSN) {
        lsn = value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER ? p.getLongValue() : null;
      } else {
        p.skipChildren();
      }
    }
    return lsn;
  }
}
