package dev.floe.worker.decode;

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

  /** The record with its value's schema head shared when it is the topic's known one (learning it otherwise). */
  public RawRecord share(RawRecord r) {
    byte[] v = r.body();
    if (r.sharedHead() != null || !KnownEnvelope.startsLikeEnvelope(v)) {
      return r;
    }
    KnownEnvelope known = byTopic.computeIfAbsent(r.topic(), t -> new KnownEnvelope());
    if (known.match(v) == null) {
      EnvelopeScanner.Spans spans = EnvelopeScanner.scan(v);
      if (spans == null) {
        return r;
      }
      known.learn(v, spans);
      if (known.match(v) == null) {
        return r; // not in JsonConverter's exact layout: held whole
      }
    }
    return r.sharingHead(known.head());
  }
}
