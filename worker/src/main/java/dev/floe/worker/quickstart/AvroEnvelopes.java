package dev.floe.worker.quickstart;

import dev.floe.worker.decode.RawRecord;
import io.apicurio.registry.utils.converter.AvroConverter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Rewrites JsonConverter records (the generated Debezium stream) as Kafka Connect with Apicurio's
 * AvroConverter writes them: key and value in the Confluent-compatible wire format (magic byte, the
 * 4-byte schema id, Avro), schemas registered in the registry on first use.
 */
public final class AvroEnvelopes implements AutoCloseable {
  private final JsonConverter jsonKeys = new JsonConverter();
  private final JsonConverter jsonValues = new JsonConverter();
  private final AvroConverter<?> avroKeys = new AvroConverter<>();
  private final AvroConverter<?> avroValues = new AvroConverter<>();

  /** @param registryBaseUrl the registry's root, http://host:port */
  public AvroEnvelopes(String registryBaseUrl) {
    jsonKeys.configure(Map.of("schemas.enable", "true"), true);
    jsonValues.configure(Map.of("schemas.enable", "true"), false);
    Map<String, Object> avro = new LinkedHashMap<>();
    avro.put("apicurio.registry.url", registryBaseUrl + "/apis/registry/v2");
    avro.put("apicurio.registry.auto-register", "true");
    avro.put("apicurio.registry.headers.enabled", "false");
    avro.put("apicurio.registry.as-confluent", "true");
    avro.put("apicurio.registry.use-id", "contentId");
    avroKeys.configure(avro, true);
    avroValues.configure(avro, false);
  }

  /** The same record in Avro (a tombstone stays a tombstone). */
  public RawRecord toAvro(RawRecord r) {
    RecordHeaders headers = new RecordHeaders();
    r.headers().forEach(headers::add);
    byte[] key = r.key() == null ? null : convert(jsonKeys.toConnectData(r.topic(), r.key()), avroKeys, r, headers);
    byte[] value = r.valueIsNull() ? null : convert(jsonValues.toConnectData(r.topic(), r.value()), avroValues, r, headers);
    Map<String, byte[]> out = new LinkedHashMap<>();
    headers.forEach(h -> out.put(h.key(), h.value()));
    return new RawRecord(r.topic(), r.partition(), r.offset(), key, value, out);
  }

  private static byte[] convert(SchemaAndValue data, AvroConverter<?> converter, RawRecord r, RecordHeaders headers) {
    return converter.fromConnectData(r.topic(), headers, data.schema(), data.value());
  }

  @Override
  public void close() {
    jsonKeys.close();
    jsonValues.close();
    avroKeys.close();
    avroValues.close();
  }
}
