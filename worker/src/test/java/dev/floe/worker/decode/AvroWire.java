package dev.floe.worker.decode;

import dev.floe.worker.decode.avro.SchemaId;
import dev.floe.worker.decode.avro.UnknownSchemaException;
import dev.floe.worker.decode.avro.WireFormat;
import dev.floe.worker.decode.avro.WriterSchemas;
import io.apicurio.registry.utils.converter.avro.AvroData;
import io.apicurio.registry.utils.converter.avro.AvroDataConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Rewrites JsonConverter records as Debezium's Avro converter would have written them: each JSON
 * key, value and key-move header read back into Kafka Connect's schema and value by JsonConverter,
 * turned into Avro by Kafka Connect's Avro mapping ({@link AvroData}, as Apicurio's AvroConverter
 * does), and framed in either wire format, its writer schema registered in an in-test registry
 * ({@link #schemas()}) under the ids a registry would hand out.
 */
public final class AvroWire implements WriterSchemas {
  /** The two ways a registry-aware serializer names the writer schema. */
  public enum Format {
    /** Magic byte 0 and a 4-byte id before the Avro bytes. */
    CONFLUENT,
    /** Apicurio's id headers (globalId), the Avro bytes plain. */
    APICURIO_HEADERS
  }

  private final JsonConverter keys = converter(true);
  private final JsonConverter values = converter(false);
  private final AvroData avro = new AvroData(new AvroDataConfig(Map.of()));
  private final Map<Schema, Long> ids = new ConcurrentHashMap<>();
  private final Map<Long, Schema> byId = new ConcurrentHashMap<>();

  private static JsonConverter converter(boolean isKey) {
    JsonConverter c = new JsonConverter();
    c.configure(Map.of("schemas.enable", "true", "decimal.format", "BASE64"), isKey);
    return c;
  }

  /** The in-test registry of every writer schema written so far; ids are handed out from 1 as they are first seen. */
  public WriterSchemas schemas() {
    return this;
  }

  @Override
  public Schema writerSchema(SchemaId id) {
    Schema s = byId.get(id.id());
    if (s == null) {
      throw new UnknownSchemaException("the schema registry has no " + id);
    }
    return s;
  }

  /** The Avro schema registered under {@code id}, and a fresh id for the next. */
  public long register(Schema schema) {
    return ids.computeIfAbsent(schema, s -> {
      long id = ids.size() + 1L;
      byId.put(id, s);
      return id;
    });
  }

  /** The record as Debezium's Avro converter would have written it, in {@code format}. */
  public RawRecord rewrite(RawRecord json, Format format) {
    Map<String, byte[]> headers = new HashMap<>(json.headers());
    Encoded key = json.key() == null ? null : encode(keys, json.topic(), json.key());
    Encoded value = json.value() == null ? null : encode(values, json.topic(), json.value());
    for (String h : new String[] {DebeziumDecoder.OLD_KEY_HEADER, DebeziumDecoder.NEW_KEY_HEADER}) {
      if (json.headers().get(h) != null) {
        // the header converter writes the key as the key converter writes keys
        Encoded header = encode(keys, json.topic(), json.headers().get(h));
        headers.put(h, format == Format.CONFLUENT ? header.confluent() : header.avro());
      }
    }
    if (format == Format.APICURIO_HEADERS) {
      if (key != null) {
        headers.put(WireFormat.KEY_GLOBAL_ID, idBytes(key.id()));
      }
      if (value != null) {
        headers.put(WireFormat.VALUE_GLOBAL_ID, idBytes(value.id()));
      }
    }
    return new RawRecord(json.topic(), json.partition(), json.offset(),
        key == null ? null : format == Format.CONFLUENT ? key.confluent() : key.avro(),
        value == null ? null : format == Format.CONFLUENT ? value.confluent() : value.avro(),
        Map.copyOf(headers));
  }

  /** Some Avro bytes and the id of the schema they were written with. */
  public record Encoded(long id, byte[] avro) {
    /** In the Confluent wire format. */
    public byte[] confluent() {
      return ByteBuffer.allocate(5 + avro.length).put((byte) 0).putInt((int) id).put(avro).array();
    }
  }

  /** A JsonConverter record part in Avro. */
  public Encoded encode(JsonConverter converter, String topic, byte[] json) {
    SchemaAndValue connect = converter.toConnectData(topic, json);
    Schema schema = avro.fromConnectSchema(connect.schema());
    Object datum = avro.fromConnectData(connect.schema(), connect.value());
    return new Encoded(register(schema), bytes(schema, datum));
  }

  /** The binary encoding of {@code datum}. */
  public static byte[] bytes(Schema schema, Object datum) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    try {
      new GenericDatumWriter<>(schema).write(datum, encoder);
      encoder.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  public static byte[] idBytes(long id) {
    return ByteBuffer.allocate(8).putLong(id).array();
  }
}
