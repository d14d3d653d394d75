package dev.floe.e2e;

import dev.floe.worker.quickstart.PostgresCapture;
import dev.floe.worker.testing.DebeziumAvroCapture;
import dev.floe.worker.testing.DebeziumAvroCapture.WireFormat;
import io.debezium.embedded.Connect;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium's PostgreSQL connector (embedded engine) writing changes into Kafka the way Kafka Connect
 * does with Apicurio's AvroConverter: key and value as Avro in the registry wire format, schemas
 * registered as they first appear (a new column: a new schema id), Debezium's own headers through
 * the JSON header converter. The PostgreSQL side is {@link PostgresCapture}'s, so both formats
 * capture the same way.
 */
final class AvroCapture implements Pipeline.Capture {
  private final DebeziumEngine<ChangeEvent<SourceRecord, SourceRecord>> engine;
  private final KafkaProducer<byte[], byte[]> producer;
  private final DebeziumAvroCapture.RecordConverter converter;
  private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium-avro"));
  private final AtomicLong produced = new AtomicLong();

  AvroCapture(String jdbcUrl, String user, String password, String tables, String topicPrefix, String bootstrap,
      String registryV2Url, WireFormat format) {
    converter = new DebeziumAvroCapture.RecordConverter(format, registryV2Url);
    producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "acks", "all", "enable.idempotence", "true"),
        new ByteArraySerializer(), new ByteArraySerializer());
    Properties p = PostgresCapture.connectorProperties(jdbcUrl, user, password, tables, topicPrefix,
        ("floe_" + topicPrefix).replaceAll("[^a-z0-9_]", "_"));
    engine = DebeziumEngine.create(Connect.class).using(p).notifying(e -> send(e.value())).build();
    executor.execute(engine);
  }

  private void send(SourceRecord r) {
    DebeziumAvroCapture.Captured c = converter.convert(r);
    RecordHeaders headers = new RecordHeaders();
    c.headers().forEach(headers::add);
    producer.send(new ProducerRecord<>(c.topic(), null, c.key(), c.value(), headers));
    produced.incrementAndGet();
  }

  @Override
  public long produced() {
    producer.flush();
    return produced.get();
  }

  @Override
  public void close() throws Exception {
    engine.close();
    executor.shutdown();
    executor.awaitTermination(30, TimeUnit.SECONDS);
    producer.close();
    converter.close();
  }
}
