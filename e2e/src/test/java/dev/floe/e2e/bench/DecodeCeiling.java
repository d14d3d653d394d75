package dev.floe.e2e.bench;

import dev.floe.worker.decode.DebeziumDecoder;
import dev.floe.worker.decode.Decoded;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.runtime.AheadDecoder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The consume-and-decode ceiling: a topic's records only consumed from Kafka and decoded, in records
 * per second, on the worker's threads for it: one thread polls, with the worker's consumer settings,
 * and hands each poll to one decoding thread through the worker's own {@link AheadDecoder}, as a
 * worker's polling thread hands its polls to its decoder. What a worker does beyond this (holding,
 * folding, writing and committing batches, on a third thread) is what the ratio to it measures.
 * Measured in the benchmark's own JVM ({@link #measure}) or in a child JVM started with the worker's
 * flags ({@link #inWorkerJvm}): the child pays the same cold start, heap and collector as the worker
 * it is compared with, where the benchmark's JVM has a larger heap and has run Kafka's record code
 * while producing.
 */
final class DecodeCeiling {
  private static final String RESULT = "decode-ceiling-records-per-second ";

  private DecodeCeiling() {}

  /** Consumes and decodes {@code records} records of the topic's {@code partitions} partitions from their start. */
  static double measure(String bootstrapServers, String topic, int partitions, long records) {
    DebeziumDecoder decoder = new DebeziumDecoder(List.of());
    AtomicLong undecoded = new AtomicLong();
    long seen = 0;
    long t0 = System.nanoTime();
    // The worker's own hand-off: this thread queues each poll for the decoding thread and waits
    // while as many polls as a worker's may be are still undecoded.
    try (AheadDecoder<DebeziumDecoder> decoding = new AheadDecoder<>("ceiling", (d, r) -> decodeCounting(d, r, undecoded));
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerSettings(bootstrapServers), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        parts.add(new TopicPartition(topic, p));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      while (seen < records) {
        ConsumerRecords<byte[], byte[]> polled = c.poll(Duration.ofMillis(500));
        if (polled.isEmpty()) {
          continue;
        }
        List<RawRecord> raw = new ArrayList<>(polled.count());
        for (ConsumerRecord<byte[], byte[]> r : polled) {
          raw.add(new RawRecord(r.topic(), r.partition(), r.offset(), r.key(), r.value()));
        }
        decoding.submit(Map.of(decoder, raw));
        seen += polled.count();
      }
      decoding.takeQueued().run();
    }
    if (undecoded.get() > 0) {
      throw new IllegalStateException("the ceiling could not decode " + undecoded.get() + " record(s) it produced");
    }
    return seen / ((System.nanoTime() - t0) / 1e9);
  }

  /**
   * Decodes one record, counting it in {@code undecoded} when it is rejected or fails: the worker's
   * decoding thread leaves a failed record for apply time, so the ceiling counts what it left.
   */
  private static Decoded decodeCounting(DebeziumDecoder decoder, RawRecord record, AtomicLong undecoded) {
    try {
      Decoded decoded = decoder.decode(record, null);
      if (decoded instanceof Decoded.Rejected) {
        undecoded.incrementAndGet();
      }
      return decoded;
    } catch (RuntimeException e) {
      undecoded.incrementAndGet();
      throw e;
    }
  }

  /** The worker's consumer settings that decide how it fetches. */
  private static Map<String, Object> consumerSettings(String bootstrapServers) {
    Map<String, Object> settings = new java.util.HashMap<>(dev.floe.worker.runtime.KafkaClientSettings.fetching());
    settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return settings;
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
