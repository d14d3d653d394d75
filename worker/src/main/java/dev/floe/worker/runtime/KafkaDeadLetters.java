package dev.floe.worker.runtime;

import dev.floe.worker.decode.RejectedRecord;
import dev.floe.worker.engine.DeadLetterRefusedException;
import dev.floe.worker.engine.DeadLetters;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Sends rejected records to the dead-letter topic, key and value untouched, with headers naming the
 * reason and the source topic, partition and offset; returns only when Kafka has them. A record
 * that released its bytes once decoded is re-read from its topic first ({@link SourceRereader}). A
 * refusal that retrying cannot cure is a {@link DeadLetterRefusedException}.
 */
public final class KafkaDeadLetters implements DeadLetters {
  public static final String REASON = "floe.error.reason";
  public static final String TOPIC = "floe.source.topic";
  public static final String PARTITION = "floe.source.partition";
  public static final String OFFSET = "floe.source.offset";

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final SourceRereader rereader;

  /** For records that hold their bytes (none was decoded ahead): nothing to re-read. */
  public KafkaDeadLetters(Producer<byte[], byte[]> producer, String topic) {
    this(producer, topic, null);
  }

  KafkaDeadLetters(Producer<byte[], byte[]> producer, String topic, SourceRereader rereader) {
    this.producer = producer;
    this.topic = topic;
    this.rereader = rereader;
  }

  @Override
  public void send(List<RejectedRecord> rejected) {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (RejectedRecord r : rereader == null ? rejected : rereader.withBytes(rejected)) {
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
        throw failure(e.getCause());
      }
    }
  }

  /**
   * A failure Kafka may get over (a broker down, a leader moving: its retriable errors, and the
   * timeouts they end in) is retried with the batch; any other (the record is larger than
   * {@code max.request.size}, the topic is not authorised or invalid) would fail the same way
   * forever, so it stops the sink.
   */
  private RuntimeException failure(Throwable cause) {
    if (cause instanceof RetriableException) {
      return new IllegalStateException("cannot send to the dead-letter topic " + topic + " (will retry): " + cause, cause);
    }
    return new DeadLetterRefusedException("the dead-letter topic " + topic + " refused a rejected record, and retrying cannot help: "
        + cause + "; fix the producer settings or the topic (or set onError: fail), then restart", cause);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
