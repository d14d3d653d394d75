package dev.floe.worker.decode;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Refuses text that is not valid Unicode. JSON can escape a lone surrogate (backslash-u-d800) and
 * Jackson decodes it as is, but no UTF-8 writer can store it: Parquet wrote it as {@code ?}, a
 * value changed without anyone told.
 */
final class UnicodeText {
  private UnicodeText() {}

  /**
   * Whether bytes are well-formed UTF-8. Jackson validates the UTF-8 of a field name only the first
   * time it meets it: a name whose bytes equal a known name's padded lookup key (a known name with
   * 0xFF bytes spliced in) is taken for the known name, unvalidated. So bytes are checked here before
   * they are read: ASCII (what Debezium's JSON nearly always is) in one pass, the rest by the JDK's decoder.
   */
  static boolean isUtf8(byte[] bytes, int offset, int length) {
    int end = offset + length;
    for (int i = offset; i < end; i++) {
      if (bytes[i] < 0) {
        try {
          StandardCharsets.UTF_8.newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes, i, end - i));
          return true;
        } catch (CharacterCodingException e) {
          return false;
        }
      }
    }
    return true;
  }

  /** The text itself when every surrogate is paired; else an {@link IllegalArgumentException}. */
  static String requireValid(String text) {
    int i = loneSurrogateAt(text);
    if (i >= 0) {
      throw new IllegalArgumentException(String.format(
          "not valid Unicode text: lone surrogate \\u%04x at char %d of %s", (int) text.charAt(i), i, quoted(text)));
    }
    return text;
  }

  /** Where the text's first surrogate without its pair is, or -1 when every surrogate is paired (its UTF-8 then holds it exactly). */
  static int loneSurrogateAt(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!Character.isSurrogate(c)) {
        continue;
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
        continue;
      }
      return i;
    }
    return -1;
  }

  /** The text quoted with its surrogates escaped (so the reason itself is valid text), abbreviated like any value. */
  private static String quoted(String text) {
    StringBuilder out = new StringBuilder().append('"');
    int shown = Math.min(text.length(), Reasons.MAX_QUOTED);
    for (int i = 0; i < shown; i++) {
      char c = text.charAt(i);
      out.append(Character.isSurrogate(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    out.append('"');
    return shown < text.length() ? out + "…(" + text.length() + " chars)" : out.toString();
  }
}
