package dev.floe.worker.decode;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** One Kafka record as the engine sees it: where it came from, and its key and value bytes. */
public record RawRecord(
    String topic, int partition, long offset, byte[] key, byte[] value, Map<String, byte[]> headers) {

  public RawRecord {
    headers = headers == null ? Map.of() : headers;
  }

  public RawRecord(String topic, int partition, long offset, byte[] key, byte[] value) {
    this(topic, partition, offset, key, value, Map.of());
  }

  public TopicPartition topicPartition() {
    return new TopicPartition(topic, partition);
  }

  /** Bytes of key and value, for batch size limits. */
  public long sizeInBytes() {
    return (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
  }

  @Override
  public String toString() {
    return topic + "-" + partition + "@" + offset;
  }
}
