package dev.floe.worker.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the worker reaches Kafka: probes the cluster with the Admin client (which, unlike a
 * producer's or consumer's metadata request, never auto-creates a topic), logs an outage once when
 * it starts and once when it ends, and counts failed probes. Kafka's own clients retry quietly
 * (their network logs are at ERROR), so without this an unreachable broker looks like an idle one.
 */
final class KafkaContact implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaContact.class);

  private final Admin admin;
  private final String bootstrapServers;
  private final WorkerMetrics metrics;
  private final OutageLog outage;
  private volatile boolean connected;
  /** The failure that started the current outage; the clients word the same outage differently from call to call. */
  private Throwable outageCause;

  KafkaContact(Properties adminProperties, String bootstrapServers, WorkerMetrics metrics) {
    this.admin = Admin.create(adminProperties);
    this.bootstrapServers = bootstrapServers;
    this.metrics = metrics;
    this.outage = new OutageLog(LOG, "reaching Kafka at " + bootstrapServers);
  }

  /** True once a probe or a client call reached the broker, until one fails. */
  boolean connected() {
    return connected;
  }

  /** A call to Kafka (a probe, or the consumer's own) succeeded. */
  void reached() {
    outageCause = null;
    outage.succeeded();
    connected = true;
    metrics.kafkaConnected(true);
  }

  /** A call to Kafka failed for a reason the clients retry (unreachable, timed out). */
  void failed(Throwable e) {
    if (outageCause == null) {
      outageCause = e;
    }
    outage.failed(outageCause); // one line per outage, however many calls fail, whatever they say
    LOG.debug("Kafka call failed: {}", e.toString());
    connected = false;
    metrics.kafkaFailed();
    metrics.kafkaConnected(false);
  }

  /** Asks the cluster for its nodes; records the outcome. */
  boolean probe(Duration timeout) {
    try {
      admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis())).nodes()
          .get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
      reached();
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException e) {
      failed(e.getCause());
      return false;
    } catch (java.util.concurrent.TimeoutException e) {
      failed(e);
      return false;
    }
  }

  /**
   * Checks that the dead-letter topic exists; records the outcome.
   *
   * @return false where Kafka could not be reached (try again)
   * @throws DeadLetterTopicMissingException where the broker says it does not exist
   */
  boolean checkTopic(String topic, Duration timeout) {
    try {
      admin.describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs((int) timeout.toMillis())).allTopicNames()
          .get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
      reached();
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        reached();
        throw new DeadLetterTopicMissingException(topic, bootstrapServers);
      }
      if (e.getCause() instanceof TopicAuthorizationException) {
        // Allowed to write but not to describe is a valid setup: the first dead letter tells.
        reached();
        LOG.warn("cannot check that the dead-letter topic {} exists (not authorised to describe it); going on", topic);
        return true;
      }
      failed(e.getCause());
      return false;
    } catch (java.util.concurrent.TimeoutException e) {
      failed(e);
      return false;
    }
  }

  static Properties properties(Map<String, String> extra, String bootstrapServers, String clientId) {
    Properties p = KafkaClientSettings.withoutConsumerKeys(extra);
    p.put("bootstrap.servers", bootstrapServers);
    p.put("client.id", clientId);
    return p;
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(2));
  }
}
