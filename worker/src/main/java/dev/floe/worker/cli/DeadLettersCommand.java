package dev.floe.worker.cli;

import dev.floe.worker.config.ConfigException;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.runtime.KafkaClientSettings;
import dev.floe.worker.runtime.KafkaDeadLetters;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Lists a sink's dead letters with their reasons, or replays them once their cause is fixed. A
 * replay is one Kafka transaction that sends the records and commits the replay group's offsets on
 * the dead-letter topic: each dead letter is replayed exactly once, and a later replay sends only
 * the ones that arrived since.
 */
@Command(name = "dead-letters", mixinStandardHelpOptions = true,
    description = "List a sink's dead letters with their reasons, or replay them once the cause is fixed.")
final class DeadLettersCommand implements Callable<Integer> {
  static final String REPLAYED_FROM = "floe.replayed.from";

  @Mixin ConfigOption config;
  @Spec CommandSpec command;

  @ArgGroup(exclusive = true)
  Mode mode = new Mode();

  static final class Mode {
    @Option(names = "--list", description = "List them (the default).")
    boolean list;

    @Option(names = "--replay", description = "Send the ones not replayed yet back to their source topic and partition (or to --to).")
    boolean replay;
  }

  @Option(names = "--to", description = "With --replay: send to this topic instead of each record's source topic.")
  String to;

  @Option(names = "--timeout", defaultValue = "10", description = "Seconds to wait for Kafka (default ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Override
  public Integer call() {
    SinkSpec spec = config.load();
    if (spec.deadLetter() == null || spec.deadLetter().topic() == null) {
      throw new ConfigException("deadLetter.topic", "the sink has no dead-letter topic", "name one under deadLetter.topic");
    }
    if (to != null && !mode.replay) {
      throw new ConfigException("--to", "--to goes with --replay", "add --replay");
    }
    String dlq = spec.deadLetter().topic();
    Map<String, String> kafka = KafkaClientSettings.of(spec.source(), SecretResolver.fromEnvironment());
    PrintWriter out = command.commandLine().getOut();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(spec, kafka)) {
      List<TopicPartition> partitions = consumer.partitionsFor(dlq, timeout()).stream().map(p -> new TopicPartition(dlq, p.partition())).toList();
      consumer.assign(partitions);
      Map<TopicPartition, OffsetAndMetadata> replayed = consumer.committed(java.util.Set.copyOf(partitions), timeout());
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout());
      consumer.seekToBeginning(partitions);
      List<ConsumerRecord<byte[], byte[]>> letters = readUntil(consumer, ends);
      if (mode.replay) {
        replay(spec, kafka, consumer, letters, replayed, out);
      } else {
        list(letters, replayed, out);
      }
    }
    out.flush();
    return 0;
  }

  private void list(List<ConsumerRecord<byte[], byte[]>> letters, Map<TopicPartition, OffsetAndMetadata> replayed, PrintWriter out) {
    int waiting = 0;
    for (ConsumerRecord<byte[], byte[]> r : letters) {
      boolean done = isReplayed(r, replayed);
      waiting += done ? 0 : 1;
      out.printf("%s-%d@%d  from %s-%s@%s%s%n    reason: %s%n    key: %s%n", r.topic(), r.partition(), r.offset(),
          header(r, KafkaDeadLetters.TOPIC), header(r, KafkaDeadLetters.PARTITION), header(r, KafkaDeadLetters.OFFSET),
          done ? "  (replayed)" : "", header(r, KafkaDeadLetters.REASON), shortText(r.key()));
    }
    out.printf("%d dead letter(s), %d not replayed yet%n", letters.size(), waiting);
  }

  private void replay(SinkSpec spec, Map<String, String> kafka, KafkaConsumer<byte[], byte[]> consumer,
      List<ConsumerRecord<byte[], byte[]>> letters, Map<TopicPartition, OffsetAndMetadata> replayed, PrintWriter out) {
    List<ConsumerRecord<byte[], byte[]>> pending = letters.stream().filter(r -> !isReplayed(r, replayed)).toList();
    if (pending.isEmpty()) {
      out.printf("nothing to replay: all %d dead letter(s) were replayed before%n", letters.size());
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> progress = new HashMap<>();
    try (KafkaProducer<byte[], byte[]> producer = producer(spec, kafka)) {
      producer.initTransactions();
      producer.beginTransaction();
      for (ConsumerRecord<byte[], byte[]> r : pending) {
        producer.send(replayOf(r));
        progress.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
      }
      producer.sendOffsetsToTransaction(progress, consumer.groupMetadata());
      producer.commitTransaction();
    }
    out.printf("replayed %d dead letter(s) %s; recorded in consumer group %s, so a later replay sends only newer ones%n",
        pending.size(), to != null ? "to " + to : "to their source topics", replayGroup(spec));
  }

  private ProducerRecord<byte[], byte[]> replayOf(ConsumerRecord<byte[], byte[]> r) {
    RecordHeaders headers = new RecordHeaders();
    for (Header h : r.headers()) {
      if (!h.key().startsWith("floe.")) {
        headers.add(h);
      }
    }
    headers.add(REPLAYED_FROM, (r.topic() + "-" + r.partition() + "@" + r.offset() + ": " + header(r, KafkaDeadLetters.REASON))
        .getBytes(StandardCharsets.UTF_8));
    if (to != null) {
      return new ProducerRecord<>(to, null, r.key(), r.value(), headers); // partitioned by key, as Debezium's topics are
    }
    String topic = header(r, KafkaDeadLetters.TOPIC);
    if (topic == null) {
      throw new ConfigException("--replay", "dead letter " + r.topic() + "-" + r.partition() + "@" + r.offset() + " names no source topic",
          "replay it with --to <topic>");
    }
    // Its own partition: a key's changes stay in the partition they came from.
    return new ProducerRecord<>(topic, Integer.valueOf(header(r, KafkaDeadLetters.PARTITION)), r.key(), r.value(), headers);
  }

  private List<ConsumerRecord<byte[], byte[]>> readUntil(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    long deadline = System.nanoTime() + timeout().toNanos();
    while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out reading the dead-letter topic after " + out.size() + " record(s)");
      }
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
          out.add(r);
        }
      }
    }
    return out;
  }

  private static boolean isReplayed(ConsumerRecord<byte[], byte[]> r, Map<TopicPartition, OffsetAndMetadata> replayed) {
    OffsetAndMetadata upTo = replayed.get(new TopicPartition(r.topic(), r.partition()));
    return upTo != null && r.offset() < upTo.offset();
  }

  private KafkaConsumer<byte[], byte[]> consumer(SinkSpec spec, Map<String, String> kafka) {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.source().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, replayGroup(spec));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "floe-dead-letters-" + spec.sinkId());
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private KafkaProducer<byte[], byte[]> producer(SinkSpec spec, Map<String, String> kafka) {
    Properties p = KafkaClientSettings.withoutConsumerKeys(kafka);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.source().bootstrapServers());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, replayGroup(spec));
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "floe-dead-letters-" + spec.sinkId());
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** The consumer group whose offsets on the dead-letter topic record what was replayed. */
  static String replayGroup(SinkSpec spec) {
    return spec.source().groupId() + ".dead-letter-replay";
  }

  private Duration timeout() {
    return Duration.ofSeconds(timeoutSeconds);
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
    Header h = r.headers().lastHeader(key);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static String shortText(byte[] bytes) {
    if (bytes == null) {
      return "null";
    }
    String s = new String(bytes, StandardCharsets.UTF_8);
    return s.length() > 120 ? s.substring(0, 119) + "…" : s;
  }
}
