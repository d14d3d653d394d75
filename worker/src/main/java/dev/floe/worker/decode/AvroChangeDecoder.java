package dev.floe.worker.decode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.decode.DebeziumDecoder.DecodeException;
import dev.floe.worker.decode.avro.AvroJson;
import dev.floe.worker.decode.avro.ConnectSchemas;
import dev.floe.worker.decode.avro.SchemaId;
import dev.floe.worker.decode.avro.UnknownSchemaException;
import dev.floe.worker.decode.avro.WireFormat;
import dev.floe.worker.decode.avro.WriterSchemas;
import dev.floe.worker.fold.Unchanged;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.util.Utf8;

/**
 * Decodes Debezium change envelopes written by an Avro converter with a schema registry (the
 * Confluent wire format, or Apicurio's id headers; told per record). Each writer schema is fetched
 * once, and read back into the Connect schema it came from so that {@link ConnectSchemaMapper}
 * maps it as it maps JsonConverter's: the same Iceberg types and defaults, the same values (each
 * Avro value is read by the JSON path's own value reader, in the encoding JsonConverter gives it),
 * the same TOAST placeholders, truncates, key moves and rejections.
 */
public final class AvroChangeDecoder implements ChangeDecoder {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DecoderFactory AVRO = DecoderFactory.get();

  private final List<String> configuredKey;
  private final WriterSchemas writerSchemas;
  private final Map<SchemaId, Envelope> envelopes = new ConcurrentHashMap<>();
  private final Map<SchemaId, Reader> keys = new ConcurrentHashMap<>();

  /**
   * @param configuredKey the primary-key columns from config, used when a record has no key
   * @param writerSchemas where writer schemas are fetched from (cache them: this asks per new id only)
   */
  public AvroChangeDecoder(List<String> configuredKey, WriterSchemas writerSchemas) {
    this.configuredKey = List.copyOf(configuredKey);
    this.writerSchemas = writerSchemas;
  }

  @Override
  public Decoded decode(RawRecord record, org.apache.iceberg.Schema tableSchema) {
    try {
      return decodeOrThrow(record);
    } catch (DecodeException e) {
      return new Decoded.Rejected(new RejectedRecord(record, e.getMessage()));
    }
  }

  private Decoded decodeOrThrow(RawRecord record) {
    if (record.value() == null) {
      return Decoded.Skip.TOMBSTONE;
    }
    if (record.value().length == 0) {
      throw new DecodeException("value is empty (0 bytes): not a change event, and not a tombstone (a tombstone's value is null)");
    }
    WireFormat.Framed frame = frame(() -> WireFormat.value(record.value(), record.headers()));
    Envelope envelope = envelopes.computeIfAbsent(frame.id(), id -> new Envelope(new Reader(id, writerSchema(id, "value"))));
    IndexedRecord payload = (IndexedRecord) envelope.reader.read(record.value(), frame, "value");
    String op = envelope.op(payload);
    if (op.equals("t")) {
      return new ChangeEvent(Op.TRUNCATE, Map.of(), null, null, TruncateEnvelope.verifiedLsn(envelope.truncate(payload)), record);
    }
    String imageField = switch (op) {
      case "c", "u", "r" -> "after";
      case "d" -> "before";
      default -> throw new DecodeException("unsupported Debezium op '" + op + "' (expected c, u, r, d or t)");
    };
    Op kind = op.equals("d") ? Op.DELETE : Op.UPSERT;
    Row row = envelope.row(imageField);
    Object image = payload.get(row.position);
    Object[] values = null;
    if (image != null) {
      values = row.read((IndexedRecord) image);
    } else if (kind == Op.UPSERT) {
      throw new DecodeException("op '" + op + "' without an '" + imageField + "' row");
    }
    return event(record, kind, row.schema, values, envelope.lsn(payload));
  }

  /** As the JSON decoder makes an event of a row: the key (from the key record, else the row), checked against the row, and the key-move headers. */
  private Decoded event(RawRecord record, Op kind, EventSchema rowSchema, Object[] values, Long lsn) {
    Map<String, Object> key = record.key() != null && record.key().length > 0
        ? keyFromAvro(record.key(), frame(() -> WireFormat.key(record.key(), record.headers())), "key", rowSchema)
        : DebeziumDecoder.keyFromRow(configuredKey, rowSchema, values);
    DebeziumDecoder.requireKeyMatchesRow(key, rowSchema, values);
    Map<String, Object> previousKey = null;
    Map<String, Object> nextKey = null;
    if (kind == Op.DELETE) {
      values = null; // with REPLICA IDENTITY DEFAULT only the key of 'before' is real
      if (record.headers().get(DebeziumDecoder.NEW_KEY_HEADER) != null) {
        nextKey = keyHeader(record, DebeziumDecoder.NEW_KEY_HEADER, rowSchema);
      }
    } else if (record.headers().get(DebeziumDecoder.OLD_KEY_HEADER) != null) {
      previousKey = keyHeader(record, DebeziumDecoder.OLD_KEY_HEADER, rowSchema);
    }
    return new ChangeEvent(kind, key, rowSchema, values, lsn, record, previousKey, nextKey);
  }

  /**
   * A key-move header. Kafka Connect writes it with its header converter: Avro in the Confluent
   * frame, JSON, or (when the record's key names its schema in Apicurio's headers) plain Avro of
   * the key's writer schema.
   */
  private Map<String, Object> keyHeader(RawRecord record, String header, EventSchema rowSchema) {
    byte[] bytes = record.headers().get(header);
    String what = "header " + header;
    if (bytes.length > 0 && bytes[0] == '{') {
      JsonNode root;
      try {
        root = JSON.readTree(bytes);
      } catch (IOException e) {
        throw new DecodeException(what + " is not JSON: " + Reasons.abbreviated(e.getMessage()));
      } catch (NumberFormatException e) {
        throw DebeziumDecoder.numberOutOfRange(what, e);
      }
      JsonNode payload = root.has("payload") && root.has("schema") ? root.get("payload") : root;
      return DebeziumDecoder.keyColumns(payload, root, what, rowSchema);
    }
    boolean keyInHeaders = record.headers().containsKey(WireFormat.KEY_GLOBAL_ID) || record.headers().containsKey(WireFormat.KEY_CONTENT_ID);
    WireFormat.Framed frame = keyInHeaders ? frame(() -> WireFormat.key(new byte[0], record.headers())) : WireFormat.confluent(bytes);
    if (frame == null) {
      throw new DecodeException(what + " is neither JSON nor Avro in the Confluent wire format (magic byte 0 and a schema id),"
          + " and the record's key names no writer schema in Apicurio's headers to read it by");
    }
    return keyFromAvro(bytes, frame, what, rowSchema);
  }

  private Map<String, Object> keyFromAvro(byte[] bytes, WireFormat.Framed frame, String what, EventSchema rowSchema) {
    Reader reader = keys.computeIfAbsent(frame.id(), id -> new Reader(id, writerSchema(id, "key")));
    Object datum = reader.read(bytes, frame, what);
    JsonNode payload = AvroJson.of(reader.schema, datum);
    return DebeziumDecoder.keyColumns(payload, payload, what, rowSchema);
  }

  private Schema writerSchema(SchemaId id, String what) {
    try {
      return writerSchemas.writerSchema(id);
    } catch (UnknownSchemaException e) {
      throw new DecodeException(what + ": " + e.getMessage());
    }
  }

  private static WireFormat.Framed frame(java.util.function.Supplier<WireFormat.Framed> framing) {
    try {
      return framing.get();
    } catch (WireFormat.NotFramedException e) {
      throw new DecodeException(e.getMessage());
    }
  }

  /** One writer schema and its reader. */
  private static final class Reader {
    final SchemaId id;
    final Schema schema;
    final GenericDatumReader<Object> datums;

    Reader(SchemaId id, Schema schema) {
      this.id = id;
      this.schema = schema;
      this.datums = new GenericDatumReader<>(schema);
    }

    /** The datum of the bytes after the frame, all of them: bytes that do not fit the schema are a rejection. */
    Object read(byte[] bytes, WireFormat.Framed frame, String what) {
      try {
        if (frame.json()) {
          DebeziumDecoder.requireUtf8(bytes, frame.offset(), bytes.length - frame.offset(), what); // new String would replace them unseen
          return datums.read(null, AVRO.jsonDecoder(schema, new String(bytes, frame.offset(), bytes.length - frame.offset(), StandardCharsets.UTF_8)));
        }
        BinaryDecoder in = AVRO.binaryDecoder(bytes, frame.offset(), bytes.length - frame.offset(), null);
        Object datum = datums.read(null, in);
        if (!in.isEnd()) {
          throw new DecodeException(what + " has bytes left after the record its writer schema (" + id + ") describes: it was not written with that schema");
        }
        return datum;
      } catch (IOException | RuntimeException | OutOfMemoryError e) {
        if (e instanceof DecodeException d) {
          throw d;
        }
        // a length or count read from bytes that do not fit the schema can ask for any allocation
        throw new DecodeException(what + " does not match its writer schema (" + id + "): " + Reasons.abbreviated(String.valueOf(e)));
      }
    }
  }

  /** A Debezium envelope's writer schema: where op, source and the row images are, and the row schemas, mapped once. */
  private static final class Envelope {
    final Reader reader;
    final int op;
    final int source;
    final int lsn;
    final int connector;
    final int table;
    private final Map<String, Row> rows = new ConcurrentHashMap<>();

    Envelope(Reader reader) {
      this.reader = reader;
      Schema s = reader.schema;
      if (s.getType() != Schema.Type.RECORD || s.getField("op") == null) {
        throw new DecodeException("writer schema " + reader.id + " is not a Debezium change event's: "
            + (s.getType() == Schema.Type.RECORD ? "record " + s.getFullName() + " has no 'op' field" : "a " + s.getType() + ", not a record"));
      }
      this.op = s.getField("op").pos();
      Schema.Field src = s.getField("source");
      this.source = src == null ? -1 : src.pos();
      Schema sourceRecord = src == null ? null : record(src.schema());
      this.lsn = position(sourceRecord, "lsn");
      this.connector = position(sourceRecord, "connector");
      this.table = position(sourceRecord, "table");
    }

    String op(IndexedRecord payload) {
      Object v = payload.get(op);
      if (!(v instanceof CharSequence)) {
        throw new DecodeException("not a Debezium change event: no 'op' field");
      }
      return v.toString();
    }

    Long lsn(IndexedRecord payload) {
      IndexedRecord src = source(payload);
      return src != null && lsn >= 0 && src.get(lsn) instanceof Long l ? l : null;
    }

    TruncateEnvelope.Facts truncate(IndexedRecord payload) {
      IndexedRecord src = source(payload);
      if (src == null) {
        return new TruncateEnvelope.Facts(false, null, null, null, null);
      }
      String image = null;
      for (String name : new String[] {"before", "after"}) {
        Schema.Field f = reader.schema.getField(name);
        if (image == null && f != null && payload.get(f.pos()) != null) {
          image = name;
        }
      }
      return new TruncateEnvelope.Facts(true, text(src, connector), text(src, table), image, lsn(payload));
    }

    private IndexedRecord source(IndexedRecord payload) {
      return source >= 0 && payload.get(source) instanceof IndexedRecord r ? r : null;
    }

    Row row(String imageField) {
      Row row = rows.get(imageField);
      if (row == null) {
        Schema.Field f = reader.schema.getField(imageField);
        if (f == null) {
          throw new DecodeException("envelope schema has no '" + imageField + "' field");
        }
        Schema rowSchema = record(f.schema());
        if (rowSchema == null) {
          throw new DecodeException("cannot map the row schema: '" + imageField + "' is not a record");
        }
        try {
          row = new Row(f.pos(), rowSchema, ConnectSchemaMapper.rowSchema(ConnectSchemas.of(rowSchema)));
        } catch (IllegalArgumentException e) {
          throw new DecodeException("cannot map the row schema: " + e.getMessage());
        }
        rows.put(imageField, row);
      }
      return row;
    }

    private static String text(IndexedRecord r, int pos) {
      return pos >= 0 && r.get(pos) instanceof CharSequence c ? TruncateEnvelope.nonBlank(c.toString()) : null;
    }

    private static int position(Schema record, String field) {
      Schema.Field f = record == null ? null : record.getField(field);
      return f == null ? -1 : f.pos();
    }

    /** The record of a schema that is one, or a union of null and one. */
    private static Schema record(Schema s) {
      if (s.getType() == Schema.Type.UNION) {
        for (Schema t : s.getTypes()) {
          if (t.getType() == Schema.Type.RECORD) {
            return t;
          }
        }
        return null;
      }
      return s.getType() == Schema.Type.RECORD ? s : null;
    }
  }

  /** A row image's Avro record and its mapped columns, field for field in the same order. */
  private static final class Row {
    final int position;
    final EventSchema schema;
    private final Schema[] avro;

    Row(int position, Schema record, EventSchema schema) {
      this.position = position;
      this.schema = schema;
      this.avro = record.getFields().stream().map(Schema.Field::schema).toArray(Schema[]::new);
    }

    Object[] read(IndexedRecord image) {
      Object[] values = new Object[avro.length];
      for (int i = 0; i < values.length; i++) {
        values[i] = value(schema.fields().get(i), avro[i], image.get(i));
      }
      return values;
    }

    /**
     * A column's value as the JSON path reads it. The common kinds (numbers, text, micro
     * timestamps) are taken as Avro gives them, which is what their JSON reader would make of
     * JsonConverter's encoding; the rest goes through that reader. The shared tests compare both.
     */
    private static Object value(EventField f, Schema avro, Object datum) {
      if (datum == null) {
        return null;
      }
      ValueCodec codec = f.codec();
      if (codec == ValueCodecs.LONG && datum instanceof Long) {
        return datum;
      }
      if (codec == ValueCodecs.INT && datum instanceof Integer) {
        return datum;
      }
      if (codec == ValueCodecs.STRING && datum instanceof CharSequence c) {
        if (c instanceof Utf8 u && !UnicodeText.isUtf8(u.getBytes(), 0, u.getByteLength())) {
          // Avro's Utf8.toString() would replace them with U+FFFD: a value changed without anyone told
          throw new DecodeException("column '" + f.name() + "' (" + f.type() + "): not UTF-8 text (malformed bytes)");
        }
        String s = c.toString();
        if (s.equals(Unchanged.DEBEZIUM_PLACEHOLDER)) {
          return Unchanged.VALUE;
        }
        try {
          return UnicodeText.requireValid(s);
        } catch (RuntimeException e) {
          throw new DecodeException("column '" + f.name() + "' (" + f.type() + "): " + e.getMessage());
        }
      }
      if (codec == ValueCodecs.BOOLEAN && datum instanceof Boolean) {
        return datum;
      }
      if (codec == ValueCodecs.DOUBLE && datum instanceof Double) {
        return datum;
      }
      if (codec == ValueCodecs.TIMESTAMP_MICROS && datum instanceof Long micros) {
        return SharedDates.timestampFromMicros(micros);
      }
      return DebeziumDecoder.readValue(f, AvroJson.of(avro, datum));
    }
  }
}
