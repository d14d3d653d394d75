package dev.floe.worker.fold;

/**
 * What one batch does to one key: whether the stored row is discarded (a delete or truncate came
 * first), and the combined versions since then ({@code partial}, null when the key ends deleted).
 */
public final class KeyFold {
  private boolean discardsStored;
  private Object[] partial;

  /** @param discardsStored true when the table is truncated before this key's changes */
  KeyFold(boolean discardsStored) {
    this.discardsStored = discardsStored;
  }

  void upsert(Object[] version, MergeRule[] rules) {
    if (partial == null) {
      partial = version.clone();
      return;
    }
    Object[] next = new Object[partial.length];
    for (int i = 0; i < partial.length; i++) {
      next[i] = rules[i].combine(partial[i], version[i]);
    }
    partial = next;
  }

  void delete() {
    discardsStored = true;
    partial = null;
  }

  /** True when the stored row, if any, is gone before this batch's final version. */
  public boolean discardsStored() {
    return discardsStored;
  }

  /** True when the key has a row after this batch. */
  public boolean exists() {
    return partial != null;
  }

  /** The combined versions since the last delete, in table column order; null if none. */
  public Object[] partial() {
    return partial;
  }

  /** Whether resolving this key's final row needs the stored row's values. */
  public boolean needsStoredValues(MergeRule[] rules) {
    if (discardsStored || partial == null) {
      return false;
    }
    for (int i = 0; i < partial.length; i++) {
      Object v = partial[i];
      if (v == Unchanged.VALUE) {
        return true;
      }
      if (rules[i] == MergeRule.LAST || (rules[i] == MergeRule.LAST_NON_NULL && v != null)) {
        continue;
      }
      return true;
    }
    return false;
  }

  /**
   * The final row: the partial version combined with the stored row (null if none or discarded).
   * A placeholder with nothing stored behind it resolves to null.
   */
  public Object[] resolve(Object[] stored, MergeRule[] rules) {
    Object[] out = new Object[partial.length];
    boolean useStored = stored != null && !discardsStored;
    for (int i = 0; i < out.length; i++) {
      Object v = useStored ? rules[i].combine(stored[i], partial[i]) : partial[i];
      out[i] = v == Unchanged.VALUE ? null : v;
    }
    return out;
  }
}
