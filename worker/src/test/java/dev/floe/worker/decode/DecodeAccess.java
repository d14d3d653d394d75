package dev.floe.worker.decode;

/** The decode package's checks, for the probes in {@code bench}. */
public final class DecodeAccess {
  private DecodeAccess() {}

  /** {@link UnicodeText#isUtf8} over a whole array. */
  public static boolean isUtf8(byte[] bytes) {
    return UnicodeText.isUtf8(bytes, 0, bytes.length);
  }
}
