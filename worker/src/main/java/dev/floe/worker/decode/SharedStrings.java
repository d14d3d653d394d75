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
  /**
   * Each slot's hash, beside it: a value that is not held (most values of a column such as a phone
   * number) is told apart here, in one small array, instead of by reading the held string, which a
   * profile of the contest's decoding found missing the cache on a fifth of its time. A slot and its
   * hash are written apart, so a reader may pair one string with another's hash: then only the
   * comparison decides, and a mismatch merely misses a share.
   */
  private static final int[] HASH = new int[SLOTS];
  /**
   * Whether each slot's string was handed out for an equal one decoded after it: a value that
   * repeats (a status, a city) is held as this one shared instance, while one met once (a name) is
   * better held as bytes ({@link PackedChange}). Written apart from its slot as the hash is, so a
   * reader may be told wrong: that only chooses the other way of holding the same value.
   */
  private static final boolean[] REPEATED = new boolean[SLOTS];

  private SharedStrings() {}

  /** {@code s}, or an equal string decoded before it. */
  static String shared(String s) {
    if (s.length() > MAX_LENGTH) {
      return s;
    }
    int h = s.hashCode();
    int i = slotOf(h);
    if (HASH[i] == h) {
      String held = SLOT[i];
      if (held != null && s.equals(held)) {
        if (!REPEATED[i]) {
          REPEATED[i] = true;
        }
        return held;
      }
    }
    SLOT[i] = s;
    HASH[i] = h;
    REPEATED[i] = false;
    return s;
  }

  /** Whether {@code s} is the instance {@link #shared} holds for its value, and has handed it out again since it took it. */
  static boolean repeated(String s) {
    if (s.length() > MAX_LENGTH) {
      return false;
    }
    int i = slotOf(s.hashCode());
    return SLOT[i] == s && REPEATED[i];
  }

  private static int slotOf(int hash) {
    return (hash ^ (hash >>> 14)) & (SLOTS - 1);
  }
}
