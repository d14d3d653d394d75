package dev.floe.worker.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;

/**
 * Where {@link StreamedPayload} gets the parser for a payload. Setting a Jackson parser up (its
 * context, buffers, symbol table and read context: ten objects, ~550 bytes) cost as much per
 * {@code orders} record as a quarter of reading its payload, so {@link #reused()} keeps one parser
 * per thread and feeds it payload after payload, as one stream of root-level objects, and {@link
 * #fresh()} makes one per payload: the reference the reused one is compared to in a property test.
 */
abstract class PayloadParsers {
  /** A parser's payload count after which it is replaced: bounds what its buffers and symbol table keep from rare large records. */
  static final int PAYLOADS_PER_PARSER = 4096;

  private static final PayloadParsers FRESH = new Fresh();
  private static final PayloadParsers REUSED = new Reused();

  /** A new parser per payload, closed after it. */
  static PayloadParsers fresh() {
    return FRESH;
  }

  /** One parser per thread, fed payload after payload, replaced after any payload not read to a clean end. */
  static PayloadParsers reused() {
    return REUSED;
  }

  /** A parser at the start of {@code bytes[offset, offset + length)}, a payload that starts with '{'. */
  abstract JsonParser begin(ObjectMapper json, byte[] bytes, int offset, int length) throws IOException;

  /**
   * After the payload's root object was read: whether nothing but whitespace follows it. Either
   * way the payload is done with; a parser left mid-payload (an exception, a refusal before the end)
   * must be {@link #abandon}ed instead.
   */
  abstract boolean endsCleanly(JsonParser p, byte[] bytes, int offset, int length) throws IOException;

  /** The payload was not read to a clean end: its parser is closed and not used again. */
  abstract void abandon(JsonParser p);

  private static final class Fresh extends PayloadParsers {
    @Override
    JsonParser begin(ObjectMapper json, byte[] bytes, int offset, int length) throws IOException {
      return json.createParser(bytes, offset, length);
    }

    @Override
    boolean endsCleanly(JsonParser p, byte[] bytes, int offset, int length) throws IOException {
      try (p) {
        return p.nextToken() == null;
      }
    }

    @Override
    void abandon(JsonParser p) {
      closeQuietly(p);
    }
  }

  /**
   * Root-level values follow one another in one Jackson stream, separated by whitespace or nothing,
   * so a parser over a stream that hands out payload after payload reads each as the next root
   * object. The stream hands out only the current payload and then reports its end, so a payload
   * cut short fails as it would alone (and the parser is abandoned); the check after the root
   * object looks at the payload's remaining bytes instead of asking the parser for a next token,
   * which would read into the next payload.
   */
  private static final class Reused extends PayloadParsers {
    private final ThreadLocal<Fed> current = new ThreadLocal<>();

    @Override
    JsonParser begin(ObjectMapper json, byte[] bytes, int offset, int length) throws IOException {
      if (length < 2 || bytes[offset] != '{') {
        // a parser made on other bytes would read its encoding from them, and keep it for the payloads after
        throw new IOException("a payload of the common shape starts with '{'");
      }
      Fed fed = current.get();
      if (fed != null && (fed.json != json || fed.payloads >= PAYLOADS_PER_PARSER)) {
        current.remove();
        closeQuietly(fed.parser);
        fed = null;
      }
      if (fed == null) {
        Feed feed = new Feed();
        feed.next(bytes, offset, length);
        fed = new Fed(json, feed, json.createParser(feed)); // reads the first bytes to tell the encoding: the payload must be there
        current.set(fed);
      } else {
        fed.feed.next(bytes, offset, length);
      }
      fed.payloads++;
      fed.start = fed.feed.delivered - (length - fed.feed.remaining());
      return fed.parser;
    }

    @Override
    boolean endsCleanly(JsonParser p, byte[] bytes, int offset, int length) {
      Fed fed = current.get();
      long read = p.currentLocation().getByteOffset() - fed.start; // bytes of this payload the parser has read
      if (fed.parser != p || read < 0 || read > length || EnvelopeScanner.skipWhitespace(bytes, offset + (int) read) < offset + length) {
        abandon(p);
        return false;
      }
      return true;
    }

    @Override
    void abandon(JsonParser p) {
      Fed fed = current.get();
      if (fed != null && fed.parser == p) {
        current.remove();
      }
      closeQuietly(p);
    }
  }

  /** A thread's parser, the stream it reads, and where in that stream the current payload starts. */
  private static final class Fed {
    final ObjectMapper json;
    final Feed feed;
    final JsonParser parser;
    int payloads;
    /** The stream offset (bytes handed to the parser before it) of the current payload's first byte. */
    long start;

    Fed(ObjectMapper json, Feed feed, JsonParser parser) {
      this.json = json;
      this.feed = feed;
      this.parser = parser;
    }
  }

  /** The stream a reused parser reads: the current payload's bytes, then its end until the next payload is set. */
  private static final class Feed extends InputStream {
    private byte[] bytes;
    private int position;
    private int end;
    /** Bytes handed out so far, over every payload: the parser's byte offsets count the same bytes. */
    long delivered;

    /** The next payload; what the parser left unread of the last one (whitespace, see {@link Reused}) is dropped. */
    void next(byte[] b, int offset, int length) {
      bytes = b;
      position = offset;
      end = offset + length;
    }

    int remaining() {
      return end - position;
    }

    @Override
    public int read() {
      if (position >= end) {
        return -1;
      }
      delivered++;
      return bytes[position++] & 0xff;
    }

    @Override
    public int read(byte[] into, int offset, int length) {
      if (length == 0) {
        return 0;
      }
      if (position >= end) {
        return -1;
      }
      int n = Math.min(length, end - position);
      System.arraycopy(bytes, position, into, offset, n);
      position += n;
      delivered += n;
      return n;
    }
  }

  private static void closeQuietly(JsonParser p) {
    try {
      p.close();
    } catch (IOException e) {
      // closing a parser over bytes in memory has nothing to report: its buffers go back to Jackson's pool either way
    }
  }
}
