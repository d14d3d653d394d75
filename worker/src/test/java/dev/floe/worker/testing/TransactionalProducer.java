package dev.floe.worker.testing;

import dev.floe.worker.decode.RawRecord;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes records in transactions, as Kafka Connect's exactly-once source tasks (KIP-618) write
 * Debezium's changes: each transaction ends with a commit or abort marker that takes an offset.
 */
public final class TransactionalProducer implements AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;

  public TransactionalProducer(String bootstrapServers) {
    producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrapServers, "transactional.id", "connect-" + UUID.randomUUID()),
        new ByteArraySerializer(), new ByteArraySerializer());
    producer.initTransactions();
  }

  /** Sends the records in one transaction and commits it. */
  public void commit(List<RawRecord> records) {
    send(records);
    producer.commitTransaction();
  }

  /** Sends the records in one transaction, lets the broker have them, then aborts it. */
  public void abort(List<RawRecord> records) {
    send(records);
    producer.flush();
    producer.abortTransaction();
  }

  private void send(List<RawRecord> records) {
    producer.beginTransaction();
    for (RawRecord r : records) {
      RecordHeaders headers = new RecordHeaders();
      r.headers().forEach(headers::add);
      producer.send(new ProducerRecord<>(r.topic(), r.partition(), r.key(), r.value(), headers));
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
