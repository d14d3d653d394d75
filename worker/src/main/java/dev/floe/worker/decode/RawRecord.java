package dev.floe.worker.decode;

import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * One Kafka record as the engine sees it: where it came from, and its key and value bytes. A value
 * may be held with its leading schema shared ({@link SharedSchemas}): records of one table repeat
 * the same JsonConverter schema, which is most of their bytes, so a batch holds it once.
 */
public final class RawRecord {
  /** Shared by the records of one partition where the caller has one instance (a poll's), so per-record map lookups compare by reference. */
  private final TopicPartition partition;
  private final long offset;
  private final byte[] key;
  /** The value, or (when {@code head} is set) the part of it after the shared head. */
  private final byte[] body;
  /** The value's first bytes, shared with other records; null when {@code body} is the whole value. */
  private final byte[] head;
  private final Map<String, byte[]> headers;

  public RawRecord(String topic, int partition, long offset, byte[] key, byte[] value, Map<String, byte[]> headers) {
    this(new TopicPartition(topic, partition), offset, key, null, value, headers);
  }

  public RawRecord(TopicPartition partition, long offset, byte[] key, byte[] value, Map<String, byte[]> headers) {
    this(partition, offset, key, null, value, headers);
  }

  public RawRecord(String topic, int partition, long offset, byte[] key, byte[] value) {
    this(topic, partition, offset, key, value, Map.of());
  }

  private RawRecord(TopicPartition partition, long offset, byte[] key, byte[] head, byte[] body, Map<String, byte[]> headers) {
    this.partition = partition;
    this.offset = offset;
    this.key = key;
    this.head = head;
    this.body = body;
    this.headers = headers == null ? Map.of() : headers;
  }

  /** The same record, its value held as a shared head (its first {@code head.length} bytes) and the rest. */
  RawRecord sharingHead(byte[] head) {
    return new RawRecord(partition, offset, key, head, Arrays.copyOfRange(body, head.length, body.length), headers);
  }

  public String topic() {
    return partition.topic();
  }

  public int partition() {
    return partition.partition();
  }

  public long offset() {
    return offset;
  }

  public byte[] key() {
    return key;
  }

  /** The value bytes as Kafka delivered them (a copy is assembled when the head is shared); null for a tombstone. */
  public byte[] value() {
    if (head == null) {
      return body;
    }
    byte[] v = Arrays.copyOf(head, head.length + body.length);
    System.arraycopy(body, 0, v, head.length, body.length);
    return v;
  }

  /** Whether the value is null (a tombstone), without assembling it. */
  public boolean valueIsNull() {
    return head == null && body == null;
  }

  /** Length of the value, without assembling it. */
  public int valueLength() {
    return (head == null ? 0 : head.length) + (body == null ? 0 : body.length);
  }

  /** The shared head of the value, or null when the value is held whole. */
  byte[] sharedHead() {
    return head;
  }

  /** The value after the shared head (the whole value when none is shared). */
  byte[] body() {
    return body;
  }

  public Map<String, byte[]> headers() {
    return headers;
  }

  public TopicPartition topicPartition() {
    return partition;
  }

  /** Bytes of key and value as Kafka delivered them. */
  public long sizeInBytes() {
    return (key == null ? 0 : key.length) + valueLength();
  }

  /**
   * Bytes this record holds of its own, for batch size limits: key and value, less a schema head
   * shared with other records (held once for all of them).
   */
  public long heldBytes() {
    return (key == null ? 0 : key.length) + (body == null ? 0 : body.length);
  }

  /** As a record of arrays compares: the same arrays (by reference), so a comparison never assembles a value. */
  @Override
  public boolean equals(Object o) {
    return o instanceof RawRecord r && partition.equals(r.partition) && offset == r.offset
        && key == r.key && head == r.head && body == r.body && headers.equals(r.headers);
  }

  @Override
  public int hashCode() {
    return 31 * partition.hashCode() + Long.hashCode(offset);
  }

  @Override
  public String toString() {
    return partition + "@" + offset;
  }
}
