package dev.floe.worker.runtime;

import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.RejectedRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads rejected records back from the source topics by position: a record decoded ahead of its
 * batch released its bytes ({@link RawRecord#keepDecoded}), and the dead-letter topic needs them
 * untouched. Rejections are rare, so the consumer (no group: it only assigns and seeks) is made on
 * first use and kept. A record Kafka no longer has (retention, compaction) goes on without bytes,
 * its reason saying so; Kafka not answering in time is a fault the batch retries.
 */
final class SourceRereader implements AutoCloseable {
  private final Supplier<Consumer<byte[], byte[]>> connect;
  private final Duration timeout;
  private Consumer<byte[], byte[]> consumer;

  SourceRereader(Supplier<Consumer<byte[], byte[]>> connect, Duration timeout) {
    this.connect = connect;
    this.timeout = timeout;
  }

  /** A rereader with its own consumer of the source's cluster, connected as the sink's consumer is. */
  static SourceRereader of(String bootstrapServers, Map<String, String> clientSettings, String sinkId) {
    return new SourceRereader(() -> {
      Properties p = KafkaClientSettings.withoutConsumerKeys(clientSettings);
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      p.put(ConsumerConfig.CLIENT_ID_CONFIG, "floe-reread-" + sinkId);
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
      p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      p.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
      return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }, Duration.ofSeconds(60));
  }

  /** The rejections, each record holding its bytes: as it was, or re-read where it had released them. */
  List<RejectedRecord> withBytes(List<RejectedRecord> rejected) {
    Map<TopicPartition, TreeMap<Long, RawRecord>> wanted = new LinkedHashMap<>();
    for (RejectedRecord r : rejected) {
      if (r.record().bytesReleased()) {
        wanted.computeIfAbsent(r.record().topicPartition(), tp -> new TreeMap<>()).put(r.record().offset(), r.record());
      }
    }
    if (wanted.isEmpty()) {
      return rejected;
    }
    Map<RawRecord, RawRecord> reread = new HashMap<>();
    wanted.forEach((tp, offsets) -> reread.putAll(reread(tp, offsets)));
    List<RejectedRecord> out = new ArrayList<>(rejected.size());
    for (RejectedRecord r : rejected) {
      RawRecord found = r.record().bytesReleased() ? reread.get(r.record()) : r.record();
      out.add(found != null ? new RejectedRecord(found, r.reason())
          : new RejectedRecord(r.record().withBytes(null, null), r.reason() + " (its key and value were no longer in Kafka to re-read)"));
    }
    return out;
  }

  /** The records at these offsets of one partition, read again; an offset Kafka no longer has is left out. */
  private Map<RawRecord, RawRecord> reread(TopicPartition tp, TreeMap<Long, RawRecord> offsets) {
    Consumer<byte[], byte[]> c = consumer();
    c.assign(List.of(tp));
    long from = offsets.firstKey();
    long last = offsets.lastKey();
    c.seek(tp, from);
    Map<RawRecord, RawRecord> found = new HashMap<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (c.position(tp) <= last) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("cannot re-read " + tp + " offsets " + from + ".." + last
            + " from Kafka for the dead-letter topic within " + timeout.toSeconds() + " s (will retry)");
      }
      try {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          RawRecord held = offsets.get(r.offset());
          if (held != null) {
            found.put(held, held.withBytes(r.key(), r.value()));
          }
        }
      } catch (OffsetOutOfRangeException e) {
        long start = c.beginningOffsets(List.of(tp)).getOrDefault(tp, from);
        if (start <= c.position(tp)) {
          throw e; // not a retention gap: Kafka refused the position for another reason
        }
        c.seek(tp, start); // retention removed the first ones: they go on without bytes
      }
    }
    return found;
  }

  private Consumer<byte[], byte[]> consumer() {
    if (consumer == null) {
      consumer = connect.get();
    }
    return consumer;
  }

  @Override
  public void close() {
    if (consumer != null) {
      consumer.close(Duration.ofSeconds(5));
    }
  }
}
