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
  /** The image removed by each delete in this batch, in order: a key change picks the one it followed. */
  private final java.util.List<Removed> removed = new java.util.ArrayList<>(1);

  private record Removed(Long lsn, Object[] partial, boolean discardedStored, RowKey movedFrom, Long movedAtLsn) {}

  /** A primary-key update that brought a row to this key: the old key and the LSN of the create. */
  public record Move(RowKey from, Long atLsn) {}

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
    delete(null);
  }

  void delete(Long lsn) {
    // A second delete with no row in between removes nothing: keep the image the first one removed.
    if (partial != null || !deletedInBatch) {
      removed.add(new Removed(lsn, partial, discardsStored, movedFrom, movedAtLsn));
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
   * The final row: the partial version combined with the stored row (null if none or discarded).
   * A placeholder with nothing stored behind it resolves to null.
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
    Object[] out = new Object[partial.length];
    boolean useStored = stored != null && !discardsStored;
    for (int i = 0; i < out.length; i++) {
      Object v = useStored ? rules[i].combine(stored[i], partial[i]) : partial[i];
      if (v == Unchanged.VALUE && previousImage != null) {
        v = previousImage[i];
      }
      out[i] = v == Unchanged.VALUE ? null : v;
    }
    return out;
  }

  /** The row image this fold had just before its last delete, given the stored row. */
  public Object[] imageBeforeDelete(Object[] stored, MergeRule[] rules) {
    return imageBeforeDeleteAt(null, stored, rules);
  }

  /**
   * The row image removed by the delete a key change followed: the last delete before the change's
   * LSN (a key change is a delete then a create in one transaction), else the last delete.
   */
  public Object[] imageBeforeDeleteAt(Long lsn, Object[] stored, MergeRule[] rules) {
    Removed pick = removedBefore(lsn);
    return pick == null ? stored : image(pick.partial(), pick.discardedStored(), stored, rules);
  }

  /**
   * How the row that {@link #imageBeforeDeleteAt} returns came to this key, when a primary-key
   * update in this batch brought it (so unchanged values chain back through that key); else null.
   */
  public Move moveBeforeDeleteAt(Long lsn) {
    Removed pick = removedBefore(lsn);
    return pick == null || pick.movedFrom() == null ? null : new Move(pick.movedFrom(), pick.movedAtLsn());
  }

  private Removed removedBefore(Long lsn) {
    Removed pick = null;
    for (Removed r : removed) {
      if (lsn == null || r.lsn() == null || r.lsn() < lsn) {
        pick = r;
      }
    }
    if (pick == null && !removed.isEmpty()) {
      pick = removed.get(removed.size() - 1);
    }
    return pick;
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
