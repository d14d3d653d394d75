package dev.floe.worker.decode;

/**
 * One instance of each short string decoded lately. A batch holds every event it decoded until it
 * commits (hundreds of thousands, over seconds), and columns such as a status or a city repeat a
 * few values, so sharing them shrinks what a batch holds, and what each young collection copies,
 * by about a fifth on the {@code orders} rows. A lossy table of fixed size, read and written without
 * locks by every decoding thread: a slot holds one string or another (strings are immutable, so
 * either is safe to hand out), and a miss only costs the comparison.
 */
final class SharedStrings {
  private static final int SLOTS = 1 << 14;
  /** Longer strings are rarely repeated values (names, text): not worth a slot. */
  private static final int MAX_LENGTH = 32;
  private static final String[] SLOT = new String[SLOTS];

  private SharedStrings() {}

  /** {@code s}, or an equal string decoded before it. */
  static String shared(String s) {
    if (s.length() > MAX_LENGTH) {
      return s;
    }
    int h = s.hashCode();
    int i = (h ^ (h >>> 14)) & (SLOTS - 1);
    String held = SLOT[i];
    // the held string's cached hash first: a slot holding another string is told apart without reading its bytes
    if (held != null && held.hashCode() == h && s.equals(held)) {
      return held;
    }
    SLOT[i] = s;
    return s;
  }
}
