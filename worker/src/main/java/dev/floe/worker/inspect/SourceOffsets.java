package dev.floe.worker.inspect;

import dev.floe.worker.runtime.KafkaClientSettings;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/** The partitions of a sink's topics and their start and end offsets, read with Kafka's Admin client. */
final class SourceOffsets implements AutoCloseable {
  private final Admin admin;
  private final Duration timeout;

  SourceOffsets(Map<String, String> clientProperties, String bootstrapServers, Duration timeout) {
    Properties p = KafkaClientSettings.withoutConsumerKeys(clientProperties);
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "floe-status");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
    this.admin = Admin.create(p);
    this.timeout = timeout;
  }

  /** Every partition of the listed topics, or of the topics the pattern matches. */
  List<TopicPartition> partitions(List<String> topics, String pattern) throws ExecutionException, InterruptedException, TimeoutException {
    Collection<String> names = topics != null && !topics.isEmpty() ? topics
        : admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS).stream()
            .filter(Pattern.compile(pattern).asMatchPredicate()).toList();
    if (names.isEmpty()) {
      return List.of();
    }
    return admin.describeTopics(names).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS).values().stream()
        .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
        .sorted((a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()))
        .toList();
  }

  /** The last stable offsets: what a read-committed consumer can reach. */
  Map<TopicPartition, Long> ends(List<TopicPartition> partitions) throws ExecutionException, InterruptedException, TimeoutException {
    return offsets(partitions, OffsetSpec.latest());
  }

  /** The log start offsets: nothing before them can be read any more. */
  Map<TopicPartition, Long> starts(List<TopicPartition> partitions) throws ExecutionException, InterruptedException, TimeoutException {
    return offsets(partitions, OffsetSpec.earliest());
  }

  private Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, OffsetSpec spec)
      throws ExecutionException, InterruptedException, TimeoutException {
    if (partitions.isEmpty()) {
      return Map.of();
    }
    Map<TopicPartition, OffsetSpec> request = partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> spec));
    Map<TopicPartition, Long> out = new HashMap<>();
    admin.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .forEach((tp, info) -> out.put(tp, info.offset()));
    return out;
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(2));
  }
}
