package dev.floe.worker.apply;

import dev.floe.worker.fold.KeyFold;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.fold.RowKey;
import dev.floe.worker.fold.Unchanged;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The row a primary-key update moved, as it was under its old key just before the update: what the
 * new key's unchanged (TOAST) columns take. The delete half at the update's LSN says where that is:
 * in this batch (the old key's versions before it), in the {@link MoveLedger} (a delete applied by
 * an earlier batch), or not read yet (the old key's partition lags): then the old key as far as it
 * was read, every value marked {@link PendingValue} until the delete half settles it.
 */
final class MovedImages {
  private record At(RowKey key, Long lsn) {}

  private final Map<RowKey, KeyFold> folds;
  private final Map<RowKey, Object[]> stored;
  private final MoveLedger ledger;
  private final TableLayout layout;
  private final MergeRule[] rules;
  private final Map<At, Object[]> memo = new HashMap<>();
  private final Set<At> visiting = new HashSet<>();
  private final Set<Long> consumed = new HashSet<>();
  private final Map<Long, RowKey> awaiting = new LinkedHashMap<>();

  /** @param stored the stored rows of the batch's keys, pending values marked */
  MovedImages(Map<RowKey, KeyFold> folds, Map<RowKey, Object[]> stored, MoveLedger ledger, TableLayout layout) {
    this.folds = folds;
    this.stored = stored;
    this.ledger = ledger;
    this.layout = layout;
    this.rules = layout.rules();
  }

  /** The row under {@code old} just before the update at {@code lsn} (null: a source without LSNs) moved it away. */
  Object[] before(RowKey old, Long lsn) {
    At at = new At(old, lsn);
    if (memo.containsKey(at)) {
      return memo.get(at);
    }
    if (!visiting.add(at)) {
      return null; // a cycle of moves ends the chain
    }
    Object[] image = lsn == null ? withoutLsn(old) : paired(old, lsn);
    visiting.remove(at);
    memo.put(at, image);
    return image;
  }

  /** The row the delete at {@code lsn} removed from {@code old} in this batch, or null. */
  Object[] removedBy(RowKey old, long lsn) {
    KeyFold fold = folds.get(old);
    KeyFold.Removal r = fold == null ? null : fold.removalAt(lsn);
    return r == null ? null : before(old, lsn);
  }

  /** The LSNs of departed images that creates of this batch took from the ledger. */
  Set<Long> consumed() {
    return consumed;
  }

  /** Creates of this batch whose delete half has not been read yet: LSN to old key. */
  Map<Long, RowKey> awaiting() {
    return awaiting;
  }

  private Object[] paired(RowKey old, long lsn) {
    KeyFold fold = folds.get(old);
    KeyFold.Removal r = fold == null ? null : fold.removalAt(lsn);
    if (r != null) {
      return imageOf(r, old);
    }
    MoveLedger.Departed d = ledger.departed(lsn);
    if (d != null) {
      consumed.add(lsn);
      return d.image().clone();
    }
    awaiting.put(lsn, old);
    return pending(current(old), lsn);
  }

  private Object[] withoutLsn(RowKey old) {
    KeyFold fold = folds.get(old);
    if (fold == null) {
      return stored.get(old);
    }
    if (fold.deletedInBatch()) {
      return imageOf(fold.lastRemoval(), old);
    }
    return current(old);
  }

  /** The removed image, its unchanged values taken from where it had itself moved from in this batch. */
  private Object[] imageOf(KeyFold.Removal r, RowKey old) {
    Object[] image = r.image(stored.get(old), rules);
    if (image == null || r.movedFrom() == null) {
      return image;
    }
    Object[] from = before(r.movedFrom(), r.movedAtLsn());
    if (from == null) {
      return image;
    }
    Object[] out = image.clone();
    for (int i = 0; i < out.length; i++) {
      if (out[i] == Unchanged.VALUE) {
        out[i] = from[i];
      }
    }
    return out;
  }

  /** The old key as far as its partition was read. */
  private Object[] current(RowKey old) {
    KeyFold fold = folds.get(old);
    if (fold == null) {
      return stored.get(old);
    }
    if (!fold.exists()) {
      return null;
    }
    Object[] previous = fold.movedFrom() == null ? null : before(fold.movedFrom(), fold.movedAtLsn());
    return fold.resolve(stored.get(old), rules, previous);
  }

  /** Every value the update's delete half may still change, marked as pending on it. */
  private Object[] pending(Object[] current, long lsn) {
    Object[] out = current == null ? new Object[layout.columnCount()] : current.clone();
    Set<Integer> fixed = new HashSet<>();
    for (int p : layout.keyPositions()) {
      fixed.add(p);
    }
    fixed.add(layout.lsnPosition());
    for (int i = 0; i < out.length; i++) {
      if (!fixed.contains(i) && tracksPending(rules[i])) {
        out[i] = new PendingValue(lsn, i, PendingValue.unwrap(out[i]));
      }
    }
    return out;
  }

  /** Rules that only choose between versions; the arithmetic ones take the best effort as it is. */
  static boolean tracksPending(MergeRule rule) {
    return rule == MergeRule.LAST || rule == MergeRule.LAST_NON_NULL || rule == MergeRule.FIRST;
  }
}
