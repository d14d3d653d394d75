package dev.floe.e2e.bench;

import dev.floe.worker.decode.DebeziumDecoder;
import dev.floe.worker.decode.RawRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The consume-and-decode ceiling: a topic's records only consumed from Kafka and decoded, polled and
 * decoded on one thread, in records per second (a worker decodes on one thread too, but polls on
 * another, so it can come near this ceiling or pass it). Measured in the benchmark's own JVM
 * ({@link #measure}) or in a child JVM started with the worker's flags ({@link #inWorkerJvm}): the
 * child pays the same cold start, heap and collector as the worker it is compared with, where the
 * benchmark's JVM has a larger heap and has run Kafka's record code while producing.
 */
final class DecodeCeiling {
  private static final String RESULT = "decode-ceiling-records-per-second ";

  private DecodeCeiling() {}

  /** Consumes and decodes {@code records} records of the topic's {@code partitions} partitions from their start. */
  static double measure(String bootstrapServers, String topic, int partitions, long records) {
    DebeziumDecoder decoder = new DebeziumDecoder(List.of());
    long seen = 0;
    long t0 = System.nanoTime();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrapServers,
        "max.poll.records", "5000", "fetch.max.bytes", "67108864"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        parts.add(new TopicPartition(topic, p));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      while (seen < records) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          decoder.decode(new RawRecord(r.topic(), r.partition(), r.offset(), r.key(), r.value()), null);
          seen++;
        }
      }
    }
    return seen / ((System.nanoTime() - t0) / 1e9);
  }

  /** {@link #measure} in a child JVM of these flags (the worker's), its output in {@code log}. */
  static double inWorkerJvm(Path log, List<String> jvm, String bootstrapServers, String topic, int partitions, long records) throws IOException {
    String java = System.getProperty("floe.worker.java", ProcessHandle.current().info().command().orElse("java"));
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(jvm);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), DecodeCeiling.class.getName(),
        bootstrapServers, topic, String.valueOf(partitions), String.valueOf(records)));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException("the decode ceiling's JVM failed; see " + log);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return Files.readAllLines(log).stream().filter(l -> l.startsWith(RESULT)).map(l -> Double.parseDouble(l.substring(RESULT.length())))
        .findFirst().orElseThrow(() -> new IllegalStateException("no result from the decode ceiling's JVM; see " + log));
  }

  /** Arguments: bootstrap servers, topic, partitions, records. */
  public static void main(String[] args) {
    double rate = measure(args[0], args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]));
    System.out.println(RESULT + rate);
  }
}
