package dev.floe.worker.runtime;

import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SourceSpec;
import java.util.Map;
import java.util.Properties;

/**
 * The Kafka client settings of a sink's source, for every client Floe opens on its cluster (the
 * worker's consumer, dead-letter producer and admin client; the {@code floe} commands): the
 * mounted secret's keys and {@code source.properties}, secrets resolved.
 */
public final class KafkaClientSettings {
  private KafkaClientSettings() {}

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
