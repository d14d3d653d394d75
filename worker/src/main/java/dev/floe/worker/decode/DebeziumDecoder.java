package dev.floe.worker.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.floe.worker.fold.Unchanged;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Decodes Debezium change envelopes written by Kafka Connect's JsonConverter, with schema
 * ({@code schemas.enable=true}) or without (then the table's schema says how to read values). The
 * key record gives the primary key; a record it cannot read becomes a rejection with the reason.
 */
public final class DebeziumDecoder implements ChangeDecoder {
  /** The reader of every JSON value (package-private: the tests that hold streamed reads to tree reads use it too). */
  static final ObjectMapper JSON = JsonMapper.builder()
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .build();
  /**
   * For the rare value holding a float no decimal can represent (an exponent past an int, such as
   * 1e6123046116182000): read as doubles it is infinite, so a field nobody reads does not sink the
   * record, as it does not in the streamed read; a column holding it is then judged by its codec.
   */
  private static final ObjectMapper JSON_DOUBLES = JsonMapper.builder()
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .build();
  private static final String PLACEHOLDER_BASE64 =
      Base64.getEncoder().encodeToString(Unchanged.DEBEZIUM_PLACEHOLDER.getBytes(StandardCharsets.UTF_8));

  /** Set by Debezium on the insert half of a primary-key update: the row's key before it. */
  public static final String OLD_KEY_HEADER = "__debezium.oldkey";
  /** The header Debezium puts on the delete half (and its tombstone) of a primary-key update. */
  public static final String NEW_KEY_HEADER = "__debezium.newkey";

  private final List<String> configuredKey;
  private final boolean scanEnvelopes;
  private final KnownEnvelope valueSchemas = new KnownEnvelope();
  private final KnownEnvelope keySchemas = new KnownEnvelope();
  private final Map<SchemaBytes, EnvelopeSchemas> schemaCache = Collections.synchronizedMap(
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<SchemaBytes, EnvelopeSchemas> eldest) {
          return size() > 256;
        }
      });
  private Schema lastTableSchema;
  private EventSchema lastTableEventSchema;

  /**
   * A record's schema bytes as a cache key. Every record repeats its schema (a few KB), so the
   * hash samples 64 bytes spread over it instead of reading them all (a profile showed
   * ByteBuffer.hashCode at 12% of a worker's CPU); equality still compares every byte, with the
   * JDK's vectorized mismatch.
   */
  private static final class SchemaBytes {
    private final byte[] bytes;
    private final int offset;
    private final int length;
    private final int hash;

    SchemaBytes(byte[] bytes, int offset, int length) {
      this.bytes = bytes;
      this.offset = offset;
      this.length = length;
      int h = length;
      int step = Math.max(1, length / 64);
      for (int i = 0; i < length; i += step) {
        h = 31 * h + bytes[offset + i];
      }
      this.hash = h;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof SchemaBytes other && other.hash == hash && other.length == length
          && Arrays.equals(bytes, offset, offset + length, other.bytes, other.offset, other.offset + length);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /** @param configuredKey the primary-key columns from config, used when a record has no key */
  public DebeziumDecoder(List<String> configuredKey) {
    this(configuredKey, true);
  }

  private DebeziumDecoder(List<String> configuredKey, boolean scanEnvelopes) {
    this.configuredKey = List.copyOf(configuredKey);
    this.scanEnvelopes = scanEnvelopes;
  }

  /** The same decoder reading every envelope with Jackson alone: the baseline its benchmark compares against. */
  public static DebeziumDecoder withoutEnvelopeScanner(List<String> configuredKey) {
    return new DebeziumDecoder(configuredKey, false);
  }

  /**
   * Decodes one record.
   *
   * @param tableSchema the target table's schema, or null if the table does not exist yet; needed
   *     only for JSON without schema
   */
  @Override
  public Decoded decode(RawRecord record, Schema tableSchema) {
    try {
      return decodeOrThrow(record, tableSchema);
    } catch (DecodeException e) {
      return new Decoded.Rejected(new RejectedRecord(record, e.getMessage()));
    }
  }

  private Decoded decodeOrThrow(RawRecord record, Schema tableSchema) {
    if (record.valueIsNull()) {
      return Decoded.Skip.TOMBSTONE;
    }
    if (record.valueLength() == 0) {
      // A Kafka tombstone is a null value; an empty one is something else, and must be counted.
      throw new DecodeException("value is empty (0 bytes): not a change event, and not a tombstone (a tombstone's value is null)");
    }
    if (scanEnvelopes) {
      Decoded streamed = streamed(record);
      if (streamed != null) {
        return streamed;
      }
    }
    Envelope envelope = envelope(record.value(), scanEnvelopes);
    JsonNode payload = envelope.payload();
    if (payload == null || payload.isNull()) {
      return Decoded.Skip.TOMBSTONE;
    }
    JsonNode opNode = payload.get("op");
    if (opNode == null || !opNode.isTextual()) {
      throw new DecodeException("not a Debezium change event: no 'op' field");
    }
    String op = opNode.textValue();
    if (op.equals("t")) {
      if (envelope.hasSchema()) {
        schemas(envelope); // never used by a truncate, but a record whose schema is not JSON is not a truncate either
      }
      return new ChangeEvent(Op.TRUNCATE, Map.of(), null, null, TruncateEnvelope.verifiedLsn(payload), record);
    }
    Long lsn = lsn(payload.get("source"));
    String imageField = switch (op) {
      case "c", "u", "r" -> "after";
      case "d" -> "before";
      default -> throw new DecodeException("unsupported Debezium op '" + op + "' (expected c, u, r, d or t)");
    };
    Op kind = op.equals("d") ? Op.DELETE : Op.UPSERT;
    EventSchema rowSchema = rowSchema(envelope, imageField, tableSchema);
    JsonNode image = payload.get(imageField);
    Object[] values = null;
    if (image != null && !image.isNull()) {
      if (!image.isObject()) {
        throw new DecodeException("'" + imageField + "' is not an object");
      }
      values = readRow(rowSchema, image);
    } else if (kind == Op.UPSERT) {
      throw new DecodeException("op '" + op + "' without an '" + imageField + "' row");
    }
    return event(record, kind, rowSchema, values, lsn);
  }

  /** The event of a decoded row image: its key (from the key record, else the row), checked against the row, and the key-move headers. */
  private Decoded event(RawRecord record, Op kind, EventSchema rowSchema, Object[] values, Long lsn) {
    Map<String, Object> key = key(record, rowSchema, values);
    requireKeyMatchesRow(key, rowSchema, values);
    shareKeyObjects(key, rowSchema, values);
    Map<String, Object> previousKey = null;
    Map<String, Object> nextKey = null;
    if (kind == Op.DELETE) {
      values = null; // with REPLICA IDENTITY DEFAULT only the key of 'before' is real
      if (record.headers().get(NEW_KEY_HEADER) != null) {
        nextKey = keyFromJson(record.headers().get(NEW_KEY_HEADER), "header " + NEW_KEY_HEADER, rowSchema);
      }
    } else if (record.headers().get(OLD_KEY_HEADER) != null) {
      previousKey = keyFromJson(record.headers().get(OLD_KEY_HEADER), "header " + OLD_KEY_HEADER, rowSchema);
    }
    return new ChangeEvent(kind, key, rowSchema, values, lsn, record, previousKey, nextKey);
  }

  /**
   * The fast path: a JsonConverter envelope of a known schema (or one the scanner locates), its
   * payload streamed into values. Null for anything it does not read (then the general path
   * decides); key checks and headers are the general path's own code.
   */
  private Decoded streamed(RawRecord record) {
    byte[] head = record.sharedHead();
    byte[] bytes = record.body();
    EnvelopeScanner.Spans spans;
    Envelope envelope;
    if (head != null) {
      // The batch recognised the schema already (SharedSchemas): the head holds it, the body the payload.
      spans = KnownEnvelope.spansOfHead(head, bytes.length);
      envelope = new Envelope(null, head, spans.schemaStart(), spans.schemaEnd() - spans.schemaStart());
    } else {
      // A record held whole that starts with the known head: that head's array names its schemas, as a shared head does.
      head = valueSchemas.matchedHead(bytes, 0, bytes.length);
      if (head != null) {
        spans = KnownEnvelope.spansOfWhole(head, bytes.length);
      } else {
        spans = EnvelopeScanner.scan(bytes);
        if (spans == null) {
          return null;
        }
        valueSchemas.learn(bytes, spans);
      }
      envelope = new Envelope(null, bytes, spans.schemaStart(), spans.schemaEnd() - spans.schemaStart());
    }
    byte[] knownHead = head;
    requireUtf8(bytes, spans.payloadStart(), spans.payloadEnd() - spans.payloadStart(), "value"); // the schema's is checked once, when it is parsed
    StreamedPayload.Read read = StreamedPayload.read(JSON, bytes, spans.payloadStart(), spans.payloadEnd() - spans.payloadStart(),
        image -> schemasOf(envelope, knownHead).row(image));
    if (read == null) {
      return null;
    }
    Op kind;
    Object[] values;
    String imageField;
    switch (read.op()) {
      case "c", "u", "r" -> {
        kind = Op.UPSERT;
        values = read.after();
        imageField = "after";
      }
      case "d" -> {
        kind = Op.DELETE;
        values = read.before();
        imageField = "before";
      }
      default -> {
        return null; // a truncate proves itself on the tree; an unknown op is worded there
      }
    }
    if (values == null) {
      return null; // no row image: the general path says what is missing
    }
    EventSchema rowSchema = schemasOf(envelope, knownHead).row(imageField);
    return event(record, kind, rowSchema, values, read.lsn());
  }

  /** The schemas of an envelope; a shared head seen last is known by identity, without comparing its bytes. */
  private EnvelopeSchemas schemasOf(Envelope envelope, byte[] head) {
    if (head == null) {
      return schemas(envelope);
    }
    HeadSchemas last = lastHead;
    if (last != null && last.head() == head) {
      return last.schemas();
    }
    EnvelopeSchemas schemas = schemas(envelope);
    lastHead = new HeadSchemas(head, schemas);
    return schemas;
  }

  private record HeadSchemas(byte[] head, EnvelopeSchemas schemas) {}

  /** The shared head decoded last and its schemas; replaced whole, so threads see one pair or another. */
  private volatile HeadSchemas lastHead;

  /** A record's payload, and where its schema is (unparsed: schemas repeat, and are parsed once). */
  private record Envelope(JsonNode payload, byte[] bytes, int schemaStart, int schemaLength) {
    boolean hasSchema() {
      return schemaLength > 0;
    }
  }

  /**
   * Reads the payload into a tree but only skims the schema, remembering its bytes: with
   * JsonConverter's schemas most of each record is the same schema, and building its tree per record
   * was most of the decoding time. Without an envelope the whole value is the payload.
   */
  private Envelope envelope(byte[] bytes, boolean scan) {
    return readingOverflowAsDoubles("value", json -> envelope(bytes, scan, json));
  }

  /** A read with {@link #JSON}, again with {@link #JSON_DOUBLES} where it met a float no decimal can hold. */
  private static <T> T readingOverflowAsDoubles(String what, java.util.function.Function<ObjectMapper, T> read) {
    try {
      return read.apply(JSON);
    } catch (NumberFormatException e) {
      try {
        return read.apply(JSON_DOUBLES);
      } catch (NumberFormatException again) {
        throw numberOutOfRange(what, again);
      }
    }
  }

  private Envelope envelope(byte[] bytes, boolean scan, ObjectMapper json) {
    requireUtf8(bytes, 0, bytes.length, "value");
    // Envelopes of a known schema are read by streamed(); what reaches here is its rare remainder.
    EnvelopeScanner.Spans spans = scan ? EnvelopeScanner.scan(bytes) : null;
    if (spans != null) { // JsonConverter's own layout: the schema is only located, never tokenized
      JsonNode payload = parse(json, bytes, spans.payloadStart(), spans.payloadEnd() - spans.payloadStart(), "value");
      valueSchemas.learn(bytes, spans);
      return new Envelope(payload, bytes, spans.schemaStart(), spans.schemaEnd() - spans.schemaStart());
    }
    try (JsonParser p = json.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new DecodeException("value is not a JSON object");
      }
      JsonNode payload = null;
      int schemaStart = -1;
      int schemaLength = 0;
      boolean other = false;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (name.equals("schema") && value == JsonToken.START_OBJECT) {
          schemaStart = (int) p.currentTokenLocation().getByteOffset();
          p.skipChildren();
          schemaLength = (int) p.currentLocation().getByteOffset() - schemaStart;
        } else if (name.equals("schema") && value == JsonToken.VALUE_NULL) {
          schemaStart = 0;
        } else if (name.equals("payload")) {
          payload = json.readTree(p);
          if (payload == null) {
            payload = com.fasterxml.jackson.databind.node.NullNode.getInstance();
          }
        } else {
          other = true;
          p.skipChildren();
        }
      }
      if (other || schemaStart < 0 || payload == null) {
        return new Envelope(parse(json, bytes, 0, bytes.length, "value"), bytes, 0, 0); // no envelope: the value is the payload
      }
      return new Envelope(payload, bytes, schemaStart, schemaLength);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new DecodeException("value is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new DecodeException("value cannot be read: " + e.getMessage());
    }
  }

  private EventSchema rowSchema(Envelope envelope, String imageField, Schema tableSchema) {
    if (envelope.hasSchema()) {
      return schemas(envelope).row(imageField);
    }
    if (tableSchema == null) {
      throw new DecodeException("JSON without schema needs an existing table to read values by; create the table or enable schemas in the converter");
    }
    return fromTable(tableSchema);
  }

  /** The envelope's schema, parsed once per distinct schema: a schema that is not JSON rejects the record. */
  private EnvelopeSchemas schemas(Envelope envelope) {
    SchemaBytes key = new SchemaBytes(envelope.bytes(), envelope.schemaStart(), envelope.schemaLength());
    EnvelopeSchemas schemas = schemaCache.get(key);
    if (schemas == null) {
      requireUtf8(envelope.bytes(), envelope.schemaStart(), envelope.schemaLength(), "schema");
      byte[] copy = new byte[envelope.schemaLength()];
      System.arraycopy(envelope.bytes(), envelope.schemaStart(), copy, 0, copy.length);
      schemas = new EnvelopeSchemas(parse(copy, "schema"));
      schemaCache.put(new SchemaBytes(copy, 0, copy.length), schemas);
    }
    return schemas;
  }

  /** The row schemas of one envelope schema, mapped on first use. */
  private static final class EnvelopeSchemas {
    private final JsonNode schema;
    private final Map<String, EventSchema> rows = new java.util.concurrent.ConcurrentHashMap<>();

    EnvelopeSchemas(JsonNode schema) {
      this.schema = schema;
    }

    EventSchema row(String imageField) {
      EventSchema cached = rows.get(imageField);
      if (cached != null) {
        return cached;
      }
      for (JsonNode f : schema.path("fields")) {
        if (imageField.equals(f.path("field").asText())) {
          try {
            EventSchema mapped = ConnectSchemaMapper.rowSchema(f);
            rows.put(imageField, mapped);
            return mapped;
          } catch (IllegalArgumentException e) {
            throw new DecodeException("cannot map the row schema: " + e.getMessage());
          }
        }
      }
      throw new DecodeException("envelope schema has no '" + imageField + "' field");
    }
  }

  private EventSchema fromTable(Schema table) {
    if (table == lastTableSchema) {
      return lastTableEventSchema;
    }
    List<EventField> fields = new ArrayList<>();
    for (Types.NestedField f : table.columns()) {
      fields.add(new EventField(f.name(), f.type(), f.isOptional(), ValueCodecs.forIcebergType(f.type())));
    }
    lastTableEventSchema = new EventSchema(fields);
    lastTableSchema = table;
    return lastTableEventSchema;
  }

  private Object[] readRow(EventSchema schema, JsonNode image) {
    Object[] values = new Object[schema.fields().size()];
    for (int i = 0; i < values.length; i++) {
      EventField f = schema.fields().get(i);
      values[i] = readValue(f, image.get(f.name()));
    }
    return values;
  }

  static Object readValue(EventField f, JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (isPlaceholder(node)) {
      return Unchanged.VALUE;
    }
    try {
      return f.codec().decode(node);
    } catch (RuntimeException e) {
      throw new DecodeException("column '" + f.name() + "' (" + f.type() + "): " + e.getMessage());
    }
  }

  private static boolean isPlaceholder(JsonNode node) {
    if (node.isTextual()) {
      return isPlaceholder(node.textValue());
    }
    return node.isArray() && node.size() == 1 && isPlaceholder(node.get(0));
  }

  /** Whether text is Debezium's placeholder for an unchanged TOAST value (as text, or as a binary column's base64). */
  static boolean isPlaceholder(String text) {
    return text.equals(Unchanged.DEBEZIUM_PLACEHOLDER) || text.equals(PLACEHOLDER_BASE64);
  }

  private Map<String, Object> key(RawRecord record, EventSchema rowSchema, Object[] values) {
    if (record.key() != null && record.key().length > 0) {
      return keyFromJson(record.key(), "key", rowSchema);
    }
    return keyFromRow(configuredKey, rowSchema, values);
  }

  /** The key of a record without a key record: the configured key columns of its row. */
  static Map<String, Object> keyFromRow(List<String> configuredKey, EventSchema rowSchema, Object[] values) {
    Map<String, Object> key = new LinkedHashMap<>();
    if (configuredKey.isEmpty()) {
      throw new DecodeException("record has no key and table.primaryKey is not configured");
    }
    if (values == null) {
      throw new DecodeException("delete without key record or 'before' row: cannot tell which row");
    }
    for (String column : configuredKey) {
      int pos = rowSchema.position(column);
      Object v = pos < 0 ? null : values[pos];
      if (v == null || v == Unchanged.VALUE) {
        throw new DecodeException("key column '" + column + "' is missing or null");
      }
      key.put(column, v);
    }
    return key;
  }

  /**
   * The row takes the key's own objects for its key columns (they are equal, checked above): an
   * event holds its key until its batch commits, so a second {@code Long} is 24 bytes more per
   * held event. Immutable values only: a buffer has a position that one reader could move under another.
   */
  private static void shareKeyObjects(Map<String, Object> key, EventSchema rowSchema, Object[] values) {
    if (values == null) {
      return;
    }
    for (Map.Entry<String, Object> k : key.entrySet()) {
      int pos = rowSchema.position(k.getKey());
      Object v = k.getValue();
      boolean immutable = v instanceof Number || v instanceof String || v instanceof java.util.UUID
          || v instanceof java.time.temporal.Temporal || v instanceof Boolean;
      if (immutable && pos >= 0 && values[pos] != null && values[pos] != Unchanged.VALUE) {
        values[pos] = v;
      }
    }
  }

  /**
   * The key record and the row image must agree on every key column the row holds: the table is
   * keyed by the key record but stores the row, so a disagreement would store a value that is in
   * neither (a key 4011 whose row says 4012 was stored as 4011).
   */
  static void requireKeyMatchesRow(Map<String, Object> key, EventSchema rowSchema, Object[] values) {
    if (values == null) {
      return;
    }
    for (Map.Entry<String, Object> k : key.entrySet()) {
      int pos = rowSchema.position(k.getKey());
      Object row = pos < 0 ? null : values[pos];
      if (row != null && row != Unchanged.VALUE && !row.equals(k.getValue())) {
        throw new DecodeException("key record and row image disagree on key column '" + k.getKey() + "': key "
            + Reasons.abbreviated(String.valueOf(k.getValue())) + ", row " + Reasons.abbreviated(String.valueOf(row)));
      }
    }
  }

  /** A key record (or key header): JSON with or without schema envelope, an object of key columns. */
  private Map<String, Object> keyFromJson(byte[] bytes, String what, EventSchema rowSchema) {
    EnvelopeScanner.Spans known = scanEnvelopes ? keySchemas.match(bytes) : null;
    if (known != null) {
      // The schema is byte for byte one validated when it was learned: only the payload is new.
      requireUtf8(bytes, known.payloadStart(), known.payloadEnd() - known.payloadStart(), what);
      Map<String, Object> streamed = streamedKey(bytes, known, rowSchema);
      if (streamed != null) {
        return streamed;
      }
    } else {
      requireUtf8(bytes, 0, bytes.length, what);
      if (scanEnvelopes) {
        learnKeySchema(bytes);
      }
    }
    JsonNode root = parse(bytes, what);
    JsonNode payload = root.has("payload") && root.has("schema") ? root.get("payload") : root;
    return keyColumns(payload, root, what, rowSchema);
  }

  /**
   * The key columns of a key record's payload (or a key header's), each read as its row column is:
   * every one must be a column of the row, and none may be null.
   */
  static Map<String, Object> keyColumns(JsonNode payload, JsonNode shown, String what, EventSchema rowSchema) {
    if (payload == null || !payload.isObject() || payload.isEmpty()) {
      throw new DecodeException(what + " is not an object of key columns: " + Reasons.shown(shown));
    }
    Map<String, Object> key = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) payload::fields) {
      EventField f = rowSchema.field(e.getKey());
      if (f == null) {
        throw new DecodeException(what + " column '" + e.getKey() + "' is not a column of the row");
      }
      Object v = readValue(f, e.getValue());
      if (v == null || v == Unchanged.VALUE) {
        throw new DecodeException(what + " column '" + e.getKey() + "' is null");
      }
      key.put(e.getKey(), v);
    }
    // Most keys are one column, and every decoded event holds its key until its batch commits: a
    // one-entry map costs a tenth of a LinkedHashMap.
    return key.size() == 1 ? Map.of(key.keySet().iterator().next(), key.values().iterator().next()) : key;
  }

  /** Learns the schema of a key envelope (validated UTF-8) when it is in JsonConverter's layout: the next key of it is read straight. */
  private void learnKeySchema(byte[] bytes) {
    EnvelopeScanner.Spans spans = EnvelopeScanner.scan(bytes);
    if (spans != null) {
      keySchemas.learn(bytes, spans);
    }
  }

  /**
   * The key columns of a key envelope of the key schema seen last ({@code known}: its spans), read
   * straight from its payload; null to read the key whole (see {@link StreamedPayload#keyColumnsOrNull}).
   */
  private Map<String, Object> streamedKey(byte[] bytes, EnvelopeScanner.Spans known, EventSchema rowSchema) {
    int start = known.payloadStart();
    int length = known.payloadEnd() - start;
    Map<String, Object> oneColumn = KeyPayload.oneColumnOrNull(bytes, start, length, rowSchema);
    return oneColumn != null ? oneColumn : StreamedPayload.keyColumnsOrNull(JSON, bytes, start, length, rowSchema);
  }

  private static Long lsn(JsonNode source) {
    if (source == null) {
      return null;
    }
    JsonNode lsn = source.get("lsn");
    return lsn != null && lsn.canConvertToLong() && lsn.isIntegralNumber() ? lsn.longValue() : null;
  }

  private static JsonNode parse(byte[] bytes, String what) {
    return parse(bytes, 0, bytes.length, what);
  }

  private static JsonNode parse(byte[] bytes, int offset, int length, String what) {
    return readingOverflowAsDoubles(what, json -> parse(json, bytes, offset, length, what));
  }

  /** Throws Jackson's NumberFormatException (a float no decimal can hold) as it is, for the caller to retry as doubles. */
  private static JsonNode parse(ObjectMapper json, byte[] bytes, int offset, int length, String what) {
    // Closed after use: Jackson recycles its buffers only for parsers that are closed.
    try (JsonParser p = json.createParser(bytes, offset, length)) {
      JsonNode node = json.readTree(p);
      if (node == null) {
        throw new DecodeException(what + " is empty");
      }
      return node;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new DecodeException(what + " is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new DecodeException(what + " cannot be read: " + e.getMessage());
    }
  }

  /** Refuses bytes that are not UTF-8 before Jackson reads them (see {@link UnicodeText#isUtf8}). */
  static void requireUtf8(byte[] bytes, int offset, int length, String what) {
    if (!UnicodeText.isUtf8(bytes, offset, length)) {
      throw new DecodeException(what + " is not UTF-8 text (malformed bytes)");
    }
  }

  /** A JSON number Jackson cannot represent (as a decimal, under USE_BIG_DECIMAL_FOR_FLOATS): a rejection, not a crash. */
  static DecodeException numberOutOfRange(String what, NumberFormatException e) {
    return new DecodeException(what + " holds a number that cannot be read: " + Reasons.abbreviated(String.valueOf(e.getMessage())));
  }

  /** A record that cannot be decoded; its message is the rejection reason. */
  static final class DecodeException extends RuntimeException {
    DecodeException(String message) {
      super(message, null, false, false);
    }
  }
}
