package dev.floe.worker.fold;

/**
 * What one batch does to one key: whether the stored row is discarded (a delete or truncate came
 * first), and the combined versions since then ({@code partial}, null when the key ends deleted).
 */
public final class KeyFold {
  private boolean discardsStored;
  private Object[] partial;
  private RowKey movedFrom;
  private Long movedAtLsn;
  private boolean deletedInBatch;
  /**
   * The image removed by each delete in this batch, in order: a key change picks the one it
   * followed. Null until the first delete: most keys of a batch are never deleted in it, and a
   * batch holds one fold per key until it commits.
   */
  private java.util.List<Removal> removed;

  /** @param discardsStored true when the table is truncated before this key's changes */
  KeyFold(boolean discardsStored) {
    this.discardsStored = discardsStored;
  }

  /**
   * Combines the next version of the row into the partial one. {@code version} may be the event's
   * own values (see {@code TableLayout.project}), kept for a retry of the batch: the fold never
   * writes into it, and copies it only when a rule's combination differs from it, so a version
   * that replaces the partial one (every {@code last} rule, the common case) is kept as it is. A
   * rule that throws leaves the partial row as it was.
   */
  void upsert(Object[] version, MergeRule[] rules) {
    if (partial != null) {
      Object[] combined = version;
      for (int i = 0; i < partial.length; i++) {
        combined = withValue(combined, version, i, rules[i].combine(partial[i], version[i]));
      }
      version = combined;
    }
    partial = version;
  }

  void delete() {
    delete(null);
  }

  void delete(Long lsn) {
    // A second delete with no row in between removes nothing: keep the image the first one removed.
    if (partial != null || !deletedInBatch) {
      if (removed == null) {
        removed = new java.util.ArrayList<>(1);
      }
      removed.add(new Removal(lsn, partial, discardsStored, movedFrom, movedAtLsn));
    }
    deletedInBatch = true;
    discardsStored = true;
    partial = null;
    movedFrom = null;
    movedAtLsn = null;
  }

  /** The current row came from another key by a primary-key update (the create at {@code lsn}). */
  void movedFrom(RowKey previous, Long lsn) {
    if (partial == null) {
      movedFrom = previous;
      movedAtLsn = lsn;
    }
  }

  /** The source LSN of the create that moved this row from its old key, or null. */
  public Long movedAtLsn() {
    return movedAtLsn;
  }

  /** The key this row had before a primary-key update in this batch, or null. */
  public RowKey movedFrom() {
    return movedFrom;
  }

  /** Whether this batch deleted the key (a delete event, not a truncate). */
  public boolean deletedInBatch() {
    return deletedInBatch;
  }

  /** Whether the final version still has columns whose values it does not carry. */
  public boolean hasUnchanged() {
    if (partial == null) {
      return false;
    }
    for (Object v : partial) {
      if (v == Unchanged.VALUE) {
        return true;
      }
    }
    return false;
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
   * Per column (table position), whether resolving this key's final row combines with the stored
   * value: a placeholder, or a rule that reads it; null when nothing stored is needed.
   */
  public boolean[] storedColumnsNeeded(MergeRule[] rules) {
    if (!needsStoredValues(rules)) {
      return null;
    }
    boolean[] out = new boolean[partial.length];
    for (int i = 0; i < partial.length; i++) {
      Object v = partial[i];
      out[i] = v == Unchanged.VALUE
          || !(rules[i] == MergeRule.LAST || (rules[i] == MergeRule.LAST_NON_NULL && v != null));
    }
    return out;
  }

  /**
   * The final row: the partial version combined with the stored row (null if none or discarded).
   * A placeholder with nothing stored behind it resolves to null. The caller must not write into
   * it: it may be the partial row, and that the event's own values.
   */
  public Object[] resolve(Object[] stored, MergeRule[] rules) {
    return resolve(stored, rules, null);
  }

  /**
   * As {@link #resolve(Object[], MergeRule[])}, taking values the final version does not carry from
   * {@code previousImage} (the row under its old key, before a primary-key update) when nothing is
   * stored under this key.
   */
  public Object[] resolve(Object[] stored, MergeRule[] rules, Object[] previousImage) {
    // The partial row itself when nothing changes it (every rule takes the new value, no
    // placeholder): a batch holds its final rows until it commits, one array per key saved. Nothing
    // downstream writes into a final row it did not make (a pending value, which a later step
    // settles in place, only ever comes from a stored row or an image, so into a new array here).
    Object[] out = partial;
    boolean useStored = stored != null && !discardsStored;
    for (int i = 0; i < partial.length; i++) {
      Object v = useStored ? rules[i].combine(stored[i], partial[i]) : partial[i];
      if (v == Unchanged.VALUE && previousImage != null) {
        v = previousImage[i];
      }
      out = withValue(out, partial, i, v == Unchanged.VALUE ? null : v);
    }
    return out;
  }

  /**
   * {@code row} with {@code value} at {@code i}: {@code row} itself when it holds that value
   * already, else a copy of {@code original} (the first time a value differs) written into.
   * {@code row} is {@code original} or a copy of it made here: the fold never writes into a row it
   * was given.
   */
  private static Object[] withValue(Object[] row, Object[] original, int i, Object value) {
    if (value == row[i]) {
      return row;
    }
    Object[] out = row == original ? original.clone() : row;
    out[i] = value;
    return out;
  }

  /**
   * What one delete of this batch removed: the combined versions before it (null when none), whether
   * the stored row was already discarded, and how that image had come to this key (a primary-key
   * update in this batch), so a key change can take its unchanged values from it.
   */
  public record Removal(Long lsn, Object[] partial, boolean discardedStored, RowKey movedFrom, Long movedAtLsn) {
    /** The removed row image, given the stored row; null when nothing was there. */
    public Object[] image(Object[] stored, MergeRule[] rules) {
      return KeyFold.image(partial, discardedStored, stored, rules);
    }
  }

  /**
   * The delete at exactly {@code lsn}: Debezium gives both halves of a primary-key update the same
   * LSN, so this is the delete half of the update at that LSN. Null when this batch has none.
   */
  public Removal removalAt(long lsn) {
    if (removed == null) {
      return null;
    }
    for (Removal r : removed) {
      if (r.lsn() != null && r.lsn() == lsn) {
        return r;
      }
    }
    return null;
  }

  /** The batch's last delete of this key, for sources without LSNs (which cannot pair the halves); null if none. */
  public Removal lastRemoval() {
    return removed == null ? null : removed.get(removed.size() - 1);
  }

  /**
   * A fold that changes nothing but rewrites the stored row as it is: how a row whose values a
   * primary-key update left pending is repaired once the update's other half arrives.
   */
  public static KeyFold rewriteStored(int columns) {
    KeyFold f = new KeyFold(false);
    f.partial = new Object[columns];
    java.util.Arrays.fill(f.partial, Unchanged.VALUE);
    return f;
  }

  private static Object[] image(Object[] partial, boolean discarded, Object[] stored, MergeRule[] rules) {
    if (partial == null) {
      return discarded ? null : stored;
    }
    Object[] out = new Object[partial.length];
    boolean useStored = stored != null && !discarded;
    for (int i = 0; i < out.length; i++) {
      out[i] = useStored ? rules[i].combine(stored[i], partial[i]) : partial[i];
    }
    return out;
  }
}
