package dev.floe.worker.quickstart;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.Header;
import io.debezium.engine.format.Json;
import io.debezium.engine.format.KeyValueHeaderChangeEventFormat;
import java.net.URI;
import java.nio.charset.StandardCharsets;
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

/**
 * Debezium's PostgreSQL connector (embedded engine) writing a table's changes into Kafka as Kafka
 * Connect would: JSON with schemas, the key record as the message key, Debezium's headers.
 */
public final class PostgresCapture implements AutoCloseable {
  private final DebeziumEngine<ChangeEvent<String, String>> engine;
  private final KafkaProducer<byte[], byte[]> producer;
  private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium"));
  private final AtomicLong produced = new AtomicLong();

  /**
   * @param jdbcUrl jdbc:postgresql://host:port/database
   * @param table schema.table to capture
   * @param topicPrefix Debezium's topic prefix: the topic is prefix.schema.table
   */
  public PostgresCapture(String jdbcUrl, String user, String password, String table, String topicPrefix, String bootstrap) {
    Properties p = connectorProperties(jdbcUrl, user, password, table, topicPrefix, ("floe_" + topicPrefix).replaceAll("[^a-z0-9_]", "_"));
    producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "acks", "all", "enable.idempotence", "true"),
        new ByteArraySerializer(), new ByteArraySerializer());
    engine = DebeziumEngine.create(KeyValueHeaderChangeEventFormat.of(Json.class, Json.class, Json.class))
        .using(p)
        .notifying(this::send)
        .build();
    executor.execute(engine);
  }

  /**
   * Debezium's PostgreSQL connector as Floe expects it: pgoutput, a filtered publication, the slot
   * dropped on stop, truncates emitted, JSON with schemas.
   */
  public static Properties connectorProperties(String jdbcUrl, String user, String password, String tables, String topicPrefix, String slot) {
    URI uri = URI.create(jdbcUrl.replaceFirst("^jdbc:", ""));
    Properties p = new Properties();
    p.setProperty("name", "floe-capture-" + slot);
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    p.setProperty("database.hostname", uri.getHost());
    p.setProperty("database.port", String.valueOf(uri.getPort() < 0 ? 5432 : uri.getPort()));
    p.setProperty("database.user", user);
    p.setProperty("database.password", password);
    p.setProperty("database.dbname", uri.getPath().substring(1).replaceFirst("\\?.*", ""));
    p.setProperty("topic.prefix", topicPrefix);
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", slot);
    p.setProperty("slot.drop.on.stop", "true");
    p.setProperty("publication.name", slot + "_pub");
    p.setProperty("publication.autocreate.mode", "filtered");
    p.setProperty("table.include.list", tables);
    p.setProperty("snapshot.mode", "initial");
    p.setProperty("skipped.operations", "none"); // emit truncates too
    p.setProperty("converter.schemas.enable", "true");
    return p;
  }

  private void send(ChangeEvent<String, String> e) {
    RecordHeaders headers = new RecordHeaders();
    for (Header<?> h : e.headers()) {
      headers.add(h.getKey(), h.getValue() == null ? null : h.getValue().toString().getBytes(StandardCharsets.UTF_8));
    }
    // Keyed like Kafka Connect: the default partitioner keeps a key in one partition.
    producer.send(new ProducerRecord<>(e.destination(), null, bytes(e.key()), bytes(e.value()), headers));
    produced.incrementAndGet();
  }

  /** Records handed to Kafka so far. */
  public long produced() {
    producer.flush();
    return produced.get();
  }

  private static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws Exception {
    engine.close();
    executor.shutdown();
    executor.awaitTermination(30, TimeUnit.SECONDS);
    producer.close();
  }
}
