package dev.floe.worker.testing;

import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.quickstart.EmbeddedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** One real Kafka broker (KRaft) for all tests of this JVM, started on first use; topics are per test. */
public final class TestKafka {
  private static EmbeddedKafka broker;

  private TestKafka() {}

  public static synchronized String bootstrap() {
    if (broker == null) {
      try {
        broker = new EmbeddedKafka();
      } catch (Exception e) {
        throw new IllegalStateException("cannot start the test Kafka broker", e);
      }
      // the broker closes itself, then deletes its directory, when the JVM exits
    }
    return broker.bootstrapServers();
  }

  /** A new topic with a unique name. */
  public static String topic(String prefix, int partitions) {
    return topicNamed(prefix + "." + UUID.randomUUID().toString().substring(0, 8), partitions);
  }

  /** A new topic with exactly this name. */
  public static String topicNamed(String name, int partitions) {
    try {
      bootstrap();
      broker.createTopic(name, partitions);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return name;
  }

  /** Produces records to their own partitions, in order; returns once Kafka has them. */
  public static void produce(List<RawRecord> records) {
    produce(bootstrap(), records);
  }

  /** Produces records to another broker than the shared one (a test's own, configured otherwise). */
  public static void produce(String bootstrapServers, List<RawRecord> records) {
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrapServers, "acks", "all",
        "enable.idempotence", "true", "max.in.flight.requests.per.connection", "1"), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (RawRecord r : records) {
        RecordHeaders headers = new RecordHeaders();
        r.headers().forEach(headers::add);
        p.send(new ProducerRecord<>(r.topic(), r.partition(), r.key(), r.value(), headers));
      }
      p.flush();
    }
  }

  /** Reads a whole topic from the start until {@code expected} records arrived or the timeout passed. */
  public static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int expected, Duration timeout) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap(), "group.id", "reader-" + UUID.randomUUID(),
        "auto.offset.reset", "earliest"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      c.subscribe(List.of(topic));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (out.size() < expected && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }
}
