package dev.floe.worker.decode;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Keeps rejection reasons short. A reason travels as a Kafka header beside the record it explains:
 * one that quoted a 5 MB value whole made the dead-letter record too large to send.
 */
public final class Reasons {
  /** The longest reason kept, in chars. */
  public static final int MAX_CHARS = 500;
  /** The longest value quoted inside a reason, in chars. */
  static final int MAX_QUOTED = 120;
  private static final int TAIL = 120;

  private Reasons() {}

  /**
   * The reason itself when short; else its start and end around the count of chars left out, so
   * the end ("is not an int") still says what was wrong.
   */
  public static String bounded(String reason) {
    if (reason == null) {
      return "(no reason given)";
    }
    if (reason.length() <= MAX_CHARS) {
      return reason;
    }
    String marker = "…(" + reason.length() + " chars)…";
    int head = MAX_CHARS - TAIL - marker.length();
    return safeHead(reason, head) + marker + safeTail(reason, TAIL);
  }

  /** A JSON value as a reason quotes it: whole when short, else its start and its length. */
  public static String shown(JsonNode value) {
    if (value != null && value.isTextual() && value.textValue().length() > MAX_QUOTED) {
      // quote the text without serializing all of it first
      return "\"" + abbreviated(value.textValue()) + "\"";
    }
    return abbreviated(String.valueOf(value));
  }

  /** Text as a reason quotes it: whole when short, else its start and "…(n chars)". */
  public static String abbreviated(String text) {
    if (text.length() <= MAX_QUOTED) {
      return text;
    }
    return safeHead(text, MAX_QUOTED) + "…(" + text.length() + " chars)";
  }

  /** The first {@code n} chars, not ending inside a surrogate pair. */
  private static String safeHead(String s, int n) {
    int end = Character.isHighSurrogate(s.charAt(n - 1)) ? n - 1 : n;
    return s.substring(0, end);
  }

  /** The last {@code n} chars, not starting inside a surrogate pair. */
  private static String safeTail(String s, int n) {
    int start = s.length() - n;
    if (Character.isLowSurrogate(s.charAt(start))) {
      start++;
    }
    return s.substring(start);
  }
}
