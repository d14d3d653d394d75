package dev.floe.operator.scale;

import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.runtime.CommitStamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Lag with Kafka's Admin client: last stable offsets minus the group's committed offsets, per
 * partition of the sink's topics (the workers move the group past commit markers, so a
 * transactional topic reads 0 once applied). A partition the group never committed counts from its earliest offset, so a
 * new sink's backlog is lag. One Admin client per cluster and credentials, kept between polls.
 */
public final class KafkaLagReader implements LagReader, AutoCloseable {
  private final Duration timeout;
  private final Map<Map<String, String>, Admin> admins = new ConcurrentHashMap<>();

  public KafkaLagReader(Duration timeout) {
    this.timeout = timeout;
  }

  @Override
  public ConsumerLag read(SourceSpec source, Map<String, String> clientProperties) {
    Map<String, String> config = new TreeMap<>(clientProperties);
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, source.bootstrapServers());
    Admin admin = admins.computeIfAbsent(config, this::connect);
    try {
      Set<String> topics = topics(admin, source);
      List<TopicPartition> partitions = admin.describeTopics(topics).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS)
          .values().stream()
          .flatMap((TopicDescription d) -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
          .toList();
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(source.groupId())
          .partitionsToOffsetAndMetadata().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      Map<TopicPartition, Long> end = offsets(admin, partitions, OffsetSpec.latest());
      Map<TopicPartition, Long> start = offsets(admin, partitions.stream().filter(tp -> committed.get(tp) == null).toList(), OffsetSpec.earliest());
      Map<TopicPartition, Long> lag = new HashMap<>();
      Instant lastCommit = null;
      Long lastSnapshot = null;
      for (TopicPartition tp : partitions) {
        OffsetAndMetadata c = committed.get(tp);
        long from = c != null ? c.offset() : start.getOrDefault(tp, 0L);
        lag.put(tp, Math.max(0, end.getOrDefault(tp, 0L) - from));
        Instant stamped = c == null ? null : CommitStamp.timeOf(c.metadata()).orElse(null);
        if (stamped != null && (lastCommit == null || stamped.isAfter(lastCommit))) {
          lastCommit = stamped;
          lastSnapshot = CommitStamp.snapshotOf(c.metadata()).orElse(null);
        }
      }
      return new ConsumerLag(lag, lastCommit, lastSnapshot);
    } catch (ExecutionException | TimeoutException e) {
      drop(config, admin);
      throw new LagReadException("cannot read the lag of group " + source.groupId() + " at " + source.bootstrapServers() + ": "
          + (e.getCause() == null ? e.toString() : e.getCause().toString()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LagReadException("interrupted while reading the lag of group " + source.groupId(), e);
    }
  }

  private Set<String> topics(Admin admin, SourceSpec source) throws ExecutionException, InterruptedException, TimeoutException {
    if (!source.topics().isEmpty()) {
      return Set.copyOf(source.topics());
    }
    Pattern pattern = Pattern.compile(source.topicPattern());
    return admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS).stream()
        .filter(t -> pattern.matcher(t).matches())
        .collect(Collectors.toSet());
  }

  private Map<TopicPartition, Long> offsets(Admin admin, List<TopicPartition> partitions, OffsetSpec spec)
      throws ExecutionException, InterruptedException, TimeoutException {
    if (partitions.isEmpty()) {
      return Map.of();
    }
    Map<TopicPartition, OffsetSpec> request = partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> spec));
    // The last stable offset: the workers read committed records only, so an open transaction of
    // the source (Debezium under Kafka Connect's exactly-once support) is not yet lag.
    Map<TopicPartition, ListOffsetsResultInfo> result = admin.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    Map<TopicPartition, Long> out = new HashMap<>();
    result.forEach((tp, info) -> out.put(tp, info.offset()));
    return out;
  }

  private Admin connect(Map<String, String> config) {
    Properties p = new Properties();
    p.putAll(config);
    p.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "floe-operator-lag");
    p.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
    p.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
    return Admin.create(p);
  }

  private void drop(Map<String, String> config, Admin admin) {
    // A broken connection (or credentials) is not kept: the next poll connects afresh.
    if (admins.remove(config, admin)) {
      admin.close(Duration.ZERO);
    }
  }

  @Override
  public void close() {
    admins.values().forEach(a -> a.close(Duration.ofSeconds(5)));
    admins.clear();
  }
}
