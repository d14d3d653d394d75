package dev.floe.worker.decode;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Holds each topic's repeated JsonConverter schema once for an open batch: a record whose value
 * starts with the schema seen last on its topic (compared byte for byte, as the decoder does) keeps
 * only its payload and shares the head. The {@code orders} records are ~3.2 KB of which ~3 KB is the
 * schema, so a batch held this way costs what its payloads cost, and a byte limit on it counts
 * that. Not thread-safe: one per consumer.
 */
public final class SharedSchemas {
  private final Map<String, KnownEnvelope> byTopic = new HashMap<>();

  /** A value held as a shared schema head (null when held whole) and the rest of its bytes. */
  public record Held(byte[] head, byte[] body) {}

  /** The record with its value's schema head shared when it is the topic's known one (learning it otherwise). */
  public RawRecord share(RawRecord r) {
    if (r.sharedHead() != null || r.valueIsNull()) {
      return r;
    }
    byte[] v = r.body();
    byte[] head = headOf(r.topic(), v);
    return head == null ? r : r.sharingHead(head);
  }

  /**
   * A value as Kafka hands it to a deserializer (a view of its fetch buffer), held with its topic's
   * schema head shared: only the payload is copied out, where copying the whole value first cost
   * an array of ~3 KB per record. Null for a tombstone.
   */
  public Held hold(String topic, ByteBuffer value) {
    if (value == null) {
      return null;
    }
    if (value.hasArray()) {
      byte[] a = value.array();
      int off = value.arrayOffset() + value.position();
      KnownEnvelope known = byTopic.get(topic);
      byte[] head = known == null ? null : known.matchedHead(a, off, value.remaining());
      if (head != null) {
        return new Held(head, Arrays.copyOfRange(a, off + head.length, off + value.remaining()));
      }
    }
    byte[] whole = new byte[value.remaining()];
    value.duplicate().get(whole);
    byte[] head = headOf(topic, whole);
    return head == null ? new Held(null, whole) : new Held(head, Arrays.copyOfRange(whole, head.length, whole.length));
  }

  /** The topic's known schema head when {@code v} starts with it (learning it when {@code v} brings a new one); else null. */
  private byte[] headOf(String topic, byte[] v) {
    if (!KnownEnvelope.startsLikeEnvelope(v)) {
      return null;
    }
    KnownEnvelope known = byTopic.computeIfAbsent(topic, t -> new KnownEnvelope());
    if (known.match(v) == null) {
      EnvelopeScanner.Spans spans = EnvelopeScanner.scan(v);
      if (spans == null) {
        return null;
      }
      known.learn(v, spans);
      if (known.match(v) == null) {
        return null; // not in JsonConverter's exact layout: held whole
      }
    }
    return known.head();
  }
}
