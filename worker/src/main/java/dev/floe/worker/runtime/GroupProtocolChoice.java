package dev.floe.worker.runtime;

import dev.floe.worker.config.ConfigException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;

/**
 * Which consumer group protocol a worker joins its group with. Kafka's {@code consumer} protocol
 * (KIP-848, GA since Kafka 4.0) hands a member its partitions on its first heartbeat; the
 * {@code classic} one makes the first member of an empty group wait out the broker's
 * {@code group.initial.rebalance.delay.ms} (3 s by default), which a worker woken from zero pays on
 * every wake-up. So a worker tries {@code consumer} first and falls back to {@code classic} when the
 * brokers refuse it (see {@link #refusedBecause}), unless the source's settings name a protocol or
 * use settings that only the classic protocol accepts.
 *
 * @param first the protocol to join with
 * @param fallBackToClassic whether a broker's refusal of {@code first} joins again with {@code classic}
 * @param why why this choice, for the log
 */
public record GroupProtocolChoice(GroupProtocol first, boolean fallBackToClassic, String why) {
  /** Client settings that the consumer protocol refuses (the broker owns them there). */
  static final List<String> CLASSIC_ONLY = List.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
      ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);

  /** The choice for a source's extra client settings ({@code source.properties} and the secret's keys). */
  public static GroupProtocolChoice of(Map<String, String> settings) {
    String named = settings.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
    if (named != null && !named.isBlank()) {
      return new GroupProtocolChoice(named(named.strip()), false, ConsumerConfig.GROUP_PROTOCOL_CONFIG + " is set");
    }
    for (String key : CLASSIC_ONLY) {
      if (settings.containsKey(key)) {
        return new GroupProtocolChoice(GroupProtocol.CLASSIC, false, key + " is set, which only the classic protocol accepts");
      }
    }
    return new GroupProtocolChoice(GroupProtocol.CONSUMER, true, "the default: partitions on the first heartbeat, classic where the brokers refuse it");
  }

  private static GroupProtocol named(String name) {
    try {
      return GroupProtocol.of(name);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("source.properties." + ConsumerConfig.GROUP_PROTOCOL_CONFIG, "must be classic or consumer, got '" + name
          + "'; leave it out to join with consumer, or classic where the brokers refuse it", "group.protocol: classic");
    }
  }

  /**
   * Classic, with nothing left to fall back to, after the brokers refused {@code first}: they do not
   * offer the consumer protocol, or a worker under the same instance id stopped without leaving (a
   * crash) and the consumer protocol keeps its membership until its session expires, where a classic
   * join takes it over at once.
   */
  public GroupProtocolChoice refusedBecause(ApiException refusal) {
    if (!fallBackToClassic) {
      throw new IllegalStateException("no fallback from " + first, refusal);
    }
    String why = refusal instanceof UnreleasedInstanceIdException
        ? "a worker under this instance id stopped without leaving the group: a classic join takes its membership over at once,"
            + " the consumer protocol only once its session expires"
        : "the brokers refused the consumer protocol (" + refusal.getMessage() + "): a worker woken from zero waits out the brokers'"
            + " group.initial.rebalance.delay.ms (3 s by default) before its first assignment";
    return new GroupProtocolChoice(GroupProtocol.CLASSIC, false, why);
  }
}
