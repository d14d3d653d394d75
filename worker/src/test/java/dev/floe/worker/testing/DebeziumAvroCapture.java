package dev.floe.worker.testing;

import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.quickstart.PostgresCapture;
import io.apicurio.registry.utils.converter.AvroConverter;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.ChangeEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium's embedded PostgreSQL connector with Apicurio's Kafka Connect {@code AvroConverter}, as a
 * Kafka Connect worker runs them in production: the connector's records are converted the way
 * Connect's source task does ({@code fromConnectData(topic, headers, schema, value)} for key and
 * value, Debezium's own headers such as {@code __debezium.oldkey} through the JSON header converter
 * with schemas), in either of Apicurio's wire formats, registering schemas in the given registry.
 * The same captured events can be converted into both formats.
 */
public final class DebeziumAvroCapture implements AutoCloseable {
  /** Where the writer schema's id travels. */
  public enum WireFormat {
    /** Confluent's: magic byte 0, the 4-byte contentId, then the Avro binary. */
    CONFLUENT,
    /** Apicurio's: the bare Avro binary; the 8-byte globalId in the {@code apicurio.key/value.globalId} header. */
    APICURIO_HEADERS;

    /** The converter's settings for this format against the registry's native v2 API. */
    public Map<String, Object> converterConfig(String registryV2Url) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("apicurio.registry.url", registryV2Url);
      c.put("apicurio.registry.auto-register", "true");
      if (this == CONFLUENT) {
        c.put("apicurio.registry.headers.enabled", "false");
        c.put("apicurio.registry.as-confluent", "true");
        c.put("apicurio.registry.use-id", "contentId");
      } else {
        c.put("apicurio.registry.headers.enabled", "true");
        c.put("apicurio.registry.use-id", "globalId");
      }
      return c;
    }
  }

  /** One Kafka record as the converter produced it (null key for a truncate, null value for a tombstone). */
  public record Captured(String topic, byte[] key, byte[] value, Map<String, byte[]> headers) {
    public RawRecord raw(int partition, long offset) {
      return new RawRecord(topic, partition, offset, key, value, headers);
    }
  }

  private final LinkedBlockingQueue<SourceRecord> queue = new LinkedBlockingQueue<>();
  private final List<SourceRecord> received = new ArrayList<>();
  private final DebeziumEngine<ChangeEvent<SourceRecord, SourceRecord>> engine;
  private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium-avro"));

  public DebeziumAvroCapture(String slot, String tables) {
    Properties p = PostgresCapture.connectorProperties(Postgres.URL, Postgres.USER, Postgres.PASSWORD, tables, "floe", slot);
    p.setProperty("offset.flush.interval.ms", "60000");
    engine = DebeziumEngine.create(Connect.class).using(p).notifying(e -> queue.add(e.value())).build();
    executor.execute(engine);
  }

  /** Waits until {@code count} records in all have arrived, then returns all of them. */
  public List<SourceRecord> awaitRecords(int count, Duration timeout) throws InterruptedException, TimeoutException {
    Instant deadline = Instant.now().plus(timeout);
    while (received.size() < count) {
      long left = Duration.between(Instant.now(), deadline).toMillis();
      if (left <= 0) {
        throw new TimeoutException("Debezium emitted " + received.size() + " of " + count + " records");
      }
      SourceRecord r = queue.poll(left, TimeUnit.MILLISECONDS);
      if (r != null) {
        received.add(r);
      }
    }
    return List.copyOf(received);
  }

  /** The records as Kafka would carry them in {@code format}, in order; schemas are registered as they are first used. */
  public static List<Captured> convert(List<SourceRecord> records, WireFormat format, String registryV2Url) {
    try (RecordConverter converter = new RecordConverter(format, registryV2Url)) {
      List<Captured> out = new ArrayList<>();
      for (SourceRecord r : records) {
        out.add(converter.convert(r));
      }
      return out;
    }
  }

  /**
   * Converts one record at a time as a Connect source task does: Debezium's headers through the JSON
   * header converter first (Apicurio's header format writes the schema ids among them), then key and
   * value through Apicurio's AvroConverter.
   */
  public static final class RecordConverter implements AutoCloseable {
    private final AvroConverter<?> keys = new AvroConverter<>();
    private final AvroConverter<?> values = new AvroConverter<>();
    private final JsonConverter headerConverter = new JsonConverter();

    public RecordConverter(WireFormat format, String registryV2Url) {
      Map<String, Object> config = format.converterConfig(registryV2Url);
      keys.configure(config, true);
      values.configure(config, false);
      headerConverter.configure(Map.of("converter.type", "header", "schemas.enable", "true"));
    }

    public Captured convert(SourceRecord r) {
      RecordHeaders headers = new RecordHeaders();
      for (org.apache.kafka.connect.header.Header h : r.headers()) {
        headers.add(h.key(), headerConverter.fromConnectHeader(r.topic(), h.key(), h.schema(), h.value()));
      }
      byte[] key = keys.fromConnectData(r.topic(), headers, r.keySchema(), r.key());
      byte[] value = values.fromConnectData(r.topic(), headers, r.valueSchema(), r.value());
      Map<String, byte[]> hs = new LinkedHashMap<>();
      for (Header h : headers) {
        hs.put(h.key(), h.value());
      }
      return new Captured(r.topic(), key, value, hs);
    }

    @Override
    public void close() {
      keys.close();
      values.close();
      headerConverter.close();
    }
  }

  @Override
  public void close() throws Exception {
    engine.close();
    executor.shutdown();
    executor.awaitTermination(30, TimeUnit.SECONDS);
  }
}
