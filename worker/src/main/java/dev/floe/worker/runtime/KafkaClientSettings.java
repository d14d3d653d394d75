package dev.floe.worker.runtime;

import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SourceSpec;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The Kafka client settings of a sink's source, for every client Floe opens on its cluster (the
 * worker's consumer, dead-letter producer and admin client; the {@code floe} commands): the
 * mounted secret's keys and {@code source.properties}, secrets resolved.
 */
public final class KafkaClientSettings {
  private KafkaClientSettings() {}

  /**
   * How a worker's consumer fetches unless the source's own properties say otherwise (they are put
   * after these): the benchmark's consume+decode ceiling fetches the same way, so the two compare.
   */
  public static Map<String, String> fetching() {
    return Map.of(
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000",
        // A sink reads a backlog as fast as it can: Debezium's JSON records are ~2-3 KB, so Kafka's
        // 1 MiB per partition and 64 KiB socket buffer made the polling thread wait on round trips.
        // Not more per partition: a fetch response is one array, alive until its last record is
        // polled, and the collector copies it whole at every young collection meanwhile (8 MiB per
        // partition made 32 MiB responses a seventh of what a worker's collector copied).
        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(2 << 20),
        ConsumerConfig.RECEIVE_BUFFER_CONFIG, String.valueOf(1 << 20),
        // Debezium under Kafka Connect with exactly-once source support writes transactions: never
        // apply an aborted record.
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
  }

  /** The source's extra client properties: the keys of {@code kafkaSecretRef}, then {@code properties}, resolved. */
  public static Map<String, String> of(SourceSpec source, SecretResolver secrets) {
    Map<String, String> p = secrets.secretDirectory("source.kafkaSecretRef", source.kafkaSecretRef());
    p.putAll(secrets.resolveAll("source.properties", source.properties()));
    return p;
  }

  /**
   * The settings for a client that is not a consumer (a producer, an admin client): the connection
   * settings (security, SASL, TLS) apply as to the consumer; consumer-only ones are left out.
   */
  public static Properties withoutConsumerKeys(Map<String, String> settings) {
    Properties p = new Properties();
    settings.forEach((k, v) -> {
      if (!k.startsWith("group.") && !k.startsWith("auto.offset") && !k.startsWith("isolation.")) {
        p.put(k, v);
      }
    });
    return p;
  }
}
