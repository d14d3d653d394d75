package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.decode.avro.SchemaId;
import dev.floe.worker.decode.avro.UnknownSchemaException;
import dev.floe.worker.decode.avro.WriterSchemas;
import dev.floe.worker.fold.Unchanged;
import dev.floe.worker.testing.AvroSamples;
import dev.floe.worker.testing.DebeziumAvroCapture.Captured;
import dev.floe.worker.testing.DebeziumAvroCapture.WireFormat;
import io.apicurio.registry.utils.converter.avro.AvroData;
import io.apicurio.registry.utils.converter.avro.AvroDataConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The real captures (PostgreSQL 15, Debezium 3.6.1, Apicurio's AvroConverter, both wire formats)
 * decode to the events the JSON decoder makes of the same changes written by JsonConverter: each
 * record's key and value read back into Kafka Connect by Kafka Connect's Avro mapping and written
 * as JsonConverter writes it, the key-move headers as they are (they went through JsonConverter).
 */
class CapturedAvroDecodesLikeJsonTest {
  private static AvroSamples.Schemas schemas;

  @BeforeAll
  static void load() throws IOException {
    schemas = AvroSamples.readSchemas();
  }

  @ParameterizedTest
  @EnumSource(WireFormat.class)
  void everyCapturedAvroRecordDecodesAsItsJsonConverterTwin(WireFormat format) throws IOException {
    List<Captured> captured = AvroSamples.read(format);
    AvroChangeDecoder avro = new AvroChangeDecoder(List.of(), registry());
    DebeziumDecoder json = new DebeziumDecoder(List.of());
    List<ChangeEvent> events = new ArrayList<>();
    long offset = 0;
    for (Captured c : captured) {
      RawRecord record = c.raw(0, offset);
      RawRecord twin = jsonTwin(format, c, offset++);

      Decoded decoded = avro.decode(record, null);

      assertThat(AvroMatchesJsonTest.outcome(decoded)).as("%s record %s", format, record)
          .isEqualTo(AvroMatchesJsonTest.outcome(json.decode(twin, null)));
      assertThat(decoded).isNotInstanceOf(Decoded.Rejected.class);
      if (decoded instanceof ChangeEvent e) {
        events.add(e);
      }
    }
    assertThat(events).extracting(ChangeEvent::op).contains(Op.UPSERT, Op.DELETE, Op.TRUNCATE);
    assertThat(events).anyMatch(e -> e.previousKey() != null).anyMatch(e -> e.nextKey() != null)
        .anyMatch(e -> e.values() != null && java.util.Arrays.asList(e.values()).contains(Unchanged.VALUE))
        .anyMatch(e -> e.schema() != null && e.schema().field("c_added") != null
            && Integer.valueOf(42).equals(e.schema().field("c_added").defaultValue())
            && e.schema().field("c_numeric") != null
            && e.schema().field("c_timestamptz").type().equals(Types.TimestampType.withZone()));
  }

  /** The writer schemas as the registry serves them: a Confluent frame's id and a contentId by content, a globalId by version. */
  private static WriterSchemas registry() {
    return id -> {
      Schema s = (id.kind() == SchemaId.Kind.GLOBAL_ID ? schemas.byGlobalId() : schemas.byContentId()).get(id.id());
      if (s == null) {
        throw new UnknownSchemaException("no " + id);
      }
      return s;
    };
  }

  /** The same change as JsonConverter (with schemas) would have written it. */
  private static RawRecord jsonTwin(WireFormat format, Captured c, long offset) {
    Map<String, byte[]> headers = new HashMap<>(c.headers());
    headers.keySet().removeIf(h -> h.startsWith("apicurio."));
    return new RawRecord(c.topic(), 0, offset, c.key() == null ? null : json(format, c, true),
        c.value() == null ? null : json(format, c, false), headers);
  }

  private static byte[] json(WireFormat format, Captured c, boolean key) {
    GenericRecord datum = AvroSamples.decode(format, c, key, schemas);
    Schema writer = schemas.writer(format, AvroSamples.frame(format, c, key).id());
    SchemaAndValue connect = new AvroData(new AvroDataConfig(Map.of())).toConnectData(writer, datum);
    JsonConverter converter = new JsonConverter();
    converter.configure(Map.of("schemas.enable", "true"), key);
    return converter.fromConnectData(c.topic(), connect.schema(), connect.value());
  }
}
