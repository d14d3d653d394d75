package dev.floe.worker.decode;

/**
 * Refuses text that is not valid Unicode. JSON can escape a lone surrogate (backslash-u-d800) and
 * Jackson decodes it as is, but no UTF-8 writer can store it: Parquet wrote it as {@code ?}, a
 * value changed without anyone told.
 */
final class UnicodeText {
  private UnicodeText() {}

  /** The text itself when every surrogate is paired; else an {@link IllegalArgumentException}. */
  static String requireValid(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!Character.isSurrogate(c)) {
        continue;
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
        continue;
      }
      throw new IllegalArgumentException(String.format(
          "not valid Unicode text: lone surrogate \\u%04x at char %d of %s", (int) c, i, quoted(text)));
    }
    return text;
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
