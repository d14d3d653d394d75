package dev.floe.worker.decode;

import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * One Kafka record as the engine sees it: where it came from, and its key and value bytes. A value
 * may be held with its leading schema shared ({@link SharedSchemas}): records of one table repeat
 * the same JsonConverter schema, which is most of their bytes, so a batch holds it once. A record
 * decoded ahead of its batch keeps its decode in place of its bytes ({@link #keepDecoded}): a batch
 * held that way costs what its rows cost, and the bytes, needed again only if the record is
 * rejected later, are re-read from Kafka by position then.
 */
public final class RawRecord {
  /** Shared by the records of one partition where the caller has one instance (a poll's), so per-record map lookups compare by reference. */
  private final TopicPartition partition;
  private final long offset;
  private final Map<String, byte[]> headers;
  private final int keyLength;
  /** The value's length, or -1 for a tombstone. */
  private final int valueLength;
  /** Bytes of key and value less a shared head: what this record holds of its own while it holds its bytes. */
  private final int ownBytes;
  /**
   * The {@link Bytes}, until the decoding thread replaces them with the record's {@link Decoded}
   * outcome; volatile, so a reader sees one or the other whole.
   */
  private volatile Object content;

  /** Key, the shared head of the value (null when the value is held whole) and the rest of the value. */
  private record Bytes(byte[] key, byte[] head, byte[] body) {}

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
    this.headers = headers == null ? Map.of() : headers;
    this.keyLength = key == null ? 0 : key.length;
    this.valueLength = head == null && body == null ? -1 : (head == null ? 0 : head.length) + (body == null ? 0 : body.length);
    this.ownBytes = keyLength + (body == null ? 0 : body.length);
    this.content = new Bytes(key, head, body);
  }

  /** A polled record whose value was held as it was deserialized ({@link SharedSchemas#hold}); a null value is a tombstone. */
  public static RawRecord polled(TopicPartition partition, long offset, byte[] key, SharedSchemas.Held value, Map<String, byte[]> headers) {
    return value == null ? new RawRecord(partition, offset, key, null, null, headers)
        : new RawRecord(partition, offset, key, value.head(), value.body(), headers);
  }

  /** The same record, its value held as a shared head (its first {@code head.length} bytes) and the rest. */
  RawRecord sharingHead(byte[] head) {
    Bytes b = bytes();
    return new RawRecord(partition, offset, b.key, head, Arrays.copyOfRange(b.body, head.length, b.body.length), headers);
  }

  /** The same record (position and headers) with the bytes re-read from Kafka in place of released ones. */
  public RawRecord withBytes(byte[] key, byte[] value) {
    return new RawRecord(partition, offset, key, value, headers);
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

  /** The key bytes; throws when they were released ({@link #bytesReleased()}). */
  public byte[] key() {
    return bytes().key;
  }

  /**
   * The value bytes as Kafka delivered them (a copy is assembled when the head is shared); null for
   * a tombstone; throws when they were released ({@link #bytesReleased()}).
   */
  public byte[] value() {
    Bytes b = bytes();
    if (b.head == null) {
      return b.body;
    }
    byte[] v = Arrays.copyOf(b.head, b.head.length + b.body.length);
    System.arraycopy(b.body, 0, v, b.head.length, b.body.length);
    return v;
  }

  /** Whether the value is null (a tombstone), without assembling it. */
  public boolean valueIsNull() {
    return valueLength < 0;
  }

  /** Length of the value, without assembling it. */
  public int valueLength() {
    return Math.max(0, valueLength);
  }

  /** The shared head of the value, or null when the value is held whole. */
  byte[] sharedHead() {
    return bytes().head;
  }

  /** The value after the shared head (the whole value when none is shared). */
  byte[] body() {
    return bytes().body;
  }

  public Map<String, byte[]> headers() {
    return headers;
  }

  public TopicPartition topicPartition() {
    return partition;
  }

  /**
   * Keeps {@code decoded}, this record's decode, in place of its bytes, which the batch then no
   * longer holds: for the thread that decodes records ahead of their batch. Who reads the record
   * after that takes the decode ({@link #decodedAhead()}); only a rejection needs the bytes again,
   * and re-reads them from Kafka.
   */
  public void keepDecoded(Decoded decoded) {
    content = java.util.Objects.requireNonNull(decoded);
  }

  /** The decode kept by {@link #keepDecoded}, or null while the record holds its bytes. */
  public Decoded decodedAhead() {
    return content instanceof Decoded d ? d : null;
  }

  /** Whether the bytes gave way to the record's decode: {@link #key()} and {@link #value()} must be re-read from Kafka. */
  public boolean bytesReleased() {
    return content instanceof Decoded;
  }

  private Bytes bytes() {
    if (content instanceof Bytes b) {
      return b;
    }
    throw new IllegalStateException(this + " was decoded ahead and its bytes released; re-read them from Kafka by position");
  }

  /** Bytes of key and value as Kafka delivered them. */
  public long sizeInBytes() {
    return keyLength + valueLength();
  }

  /**
   * Bytes this record holds of its own, for batch size limits: key and value, less a schema head
   * shared with other records (held once for all of them). Fixed when the record is made, so a
   * decode that releases the bytes does not change what its batch counted.
   */
  public long heldBytes() {
    return ownBytes;
  }

  /**
   * As a record of arrays compares: the same position and the same arrays (by reference), so a
   * comparison never assembles a value; a record that kept its decode equals only itself.
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof RawRecord r && partition.equals(r.partition) && offset == r.offset && headers.equals(r.headers)
        && content instanceof Bytes b && r.content instanceof Bytes rb && b.equals(rb);
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
