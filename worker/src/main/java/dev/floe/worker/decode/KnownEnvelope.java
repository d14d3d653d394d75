package dev.floe.worker.decode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Recognises a JsonConverter envelope whose schema is the one seen last, by comparing bytes: a
 * table's records repeat one schema, and a comparison runs at memory speed where the brace scan of
 * {@link EnvelopeScanner} reads every byte of it. Only the exact layout JsonConverter writes,
 * {@code {"schema":<schema>,"payload":{...}}} with no whitespace, is recognised; anything else is
 * left to the scanner, which teaches this class the next schema.
 */
final class KnownEnvelope {
  private static final byte[] HEAD = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PAYLOAD = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);

  /**
   * The head of the last envelope learned, {@code {"schema":<schema>,"payload":}, as its bytes;
   * replaced whole, so readers on other threads see one or the other.
   */
  private volatile byte[] head;

  /** The spans of {@code b} when it is an envelope of the known schema; else null. */
  EnvelopeScanner.Spans match(byte[] b) {
    byte[] h = matchedHead(b, 0, b.length);
    return h == null ? null : spansOfWhole(h, b.length);
  }

  /** The spans of an envelope of {@code length} bytes held whole that starts with a head this class learned. */
  static EnvelopeScanner.Spans spansOfWhole(byte[] head, int length) {
    // The payload runs to the envelope's last brace; the caller parses it strictly (one object, nothing after).
    return new EnvelopeScanner.Spans(HEAD.length, head.length - PAYLOAD.length, head.length, length - 1);
  }

  /**
   * The known head when {@code len} bytes of {@code b} from {@code off} are an envelope of the known
   * schema: they start with its head, then a payload object that runs to the last byte; else null.
   */
  byte[] matchedHead(byte[] b, int off, int len) {
    byte[] h = head;
    if (h == null || len < h.length + 3 || !Arrays.equals(b, off, off + h.length, h, 0, h.length)
        || b[off + h.length] != '{' || b[off + len - 1] != '}') {
      return null;
    }
    return h;
  }

  /** The head learned last (the same array for every envelope of that schema), or null. */
  byte[] head() {
    return head;
  }

  /** Where the schema lies in a head this class learned. */
  static EnvelopeScanner.Spans spansOfHead(byte[] head, int bodyLength) {
    return new EnvelopeScanner.Spans(HEAD.length, head.length - PAYLOAD.length, 0, bodyLength - 1);
  }

  /** Remembers the schema of an envelope the scanner read, when it is in JsonConverter's exact layout. */
  void learn(byte[] b, EnvelopeScanner.Spans spans) {
    int schemaEnd = spans.schemaEnd();
    if (spans.schemaStart() == HEAD.length && Arrays.equals(b, 0, HEAD.length, HEAD, 0, HEAD.length)
        && spans.payloadStart() == schemaEnd + PAYLOAD.length && spans.payloadEnd() == b.length - 1
        && Arrays.equals(b, schemaEnd, spans.payloadStart(), PAYLOAD, 0, PAYLOAD.length)) {
      byte[] h = head;
      if (h == null || !Arrays.equals(b, 0, spans.payloadStart(), h, 0, h.length)) {
        head = Arrays.copyOfRange(b, 0, spans.payloadStart());
      }
    }
  }

  /** Whether {@code b} starts like a JsonConverter envelope with a schema. */
  static boolean startsLikeEnvelope(byte[] b) {
    return b != null && b.length > HEAD.length && Arrays.equals(b, 0, HEAD.length, HEAD, 0, HEAD.length);
  }
}
