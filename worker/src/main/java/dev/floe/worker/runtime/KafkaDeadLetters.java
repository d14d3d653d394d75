package dev.floe.worker.runtime;

import dev.floe.worker.decode.RejectedRecord;
import dev.floe.worker.engine.DeadLetters;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Sends rejected records to the dead-letter topic, key and value untouched, with headers naming the
 * reason and the source topic, partition and offset; returns only when Kafka has them.
 */
public final class KafkaDeadLetters implements DeadLetters {
  public static final String REASON = "floe.error.reason";
  public static final String TOPIC = "floe.source.topic";
  public static final String PARTITION = "floe.source.partition";
  public static final String OFFSET = "floe.source.offset";

  private final Producer<byte[], byte[]> producer;
  private final String topic;

  public KafkaDeadLetters(Producer<byte[], byte[]> producer, String topic) {
    this.producer = producer;
    this.topic = topic;
  }

  @Override
  public void send(List<RejectedRecord> rejected) {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (RejectedRecord r : rejected) {
      RecordHeaders headers = new RecordHeaders();
      r.record().headers().forEach(headers::add);
      headers.add(REASON, utf8(r.reason()));
      headers.add(TOPIC, utf8(r.record().topic()));
      headers.add(PARTITION, utf8(String.valueOf(r.record().partition())));
      headers.add(OFFSET, utf8(String.valueOf(r.record().offset())));
      sent.add(producer.send(new ProducerRecord<>(topic, null, r.record().key(), r.record().value(), headers)));
    }
    producer.flush();
    for (Future<RecordMetadata> f : sent) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while sending to the dead-letter topic " + topic, e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("cannot send to the dead-letter topic " + topic + ": " + e.getCause(), e.getCause());
      }
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
