package dev.floe.worker.apply;

import dev.floe.worker.fold.FoldedBatch;
import dev.floe.worker.fold.KeyFold;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.fold.RowKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;

/**
 * Turns a folded batch into final rows and deletes, reading the stored rows it depends on: for
 * merge rules and TOAST placeholders, for the partition a key's stored row lives in, and for the
 * image of a row whose primary key changed. The halves of a key change pair up by LSN, in this
 * batch or through the {@link MoveLedger} with halves of earlier batches (see {@link MovedImages}).
 */
public final class ChangeResolver {
  private ChangeResolver() {}

  /**
   * The final rows to write, the stored rows (or bare keys) to delete, the move ledger to commit,
   * and whether the batch rewrote rows of keys it holds no events for (repairs of rows a key
   * change left pending, which other workers may own: such a commit must not be rebased).
   * {@code gone} are the keys of {@code deletes} that may hold no row after the commit (every
   * other deleted key is written again in {@code rows}): what an index must look at to drop.
   * {@code deletePlaces} are the primary-key index's places of the first deletes, as far as
   * resolving found them (the position writer looks up only the rest).
   */
  public record Changes(List<Object[]> rows, List<Object[]> deletes, long[] deletePlaces, List<RowKey> gone, MoveLedger moves,
      boolean repairsOtherKeys, Map<RowKey, String> unmerged) {

    Changes(List<Object[]> rows, List<Object[]> deletes, long[] deletePlaces, List<RowKey> gone, MoveLedger moves,
        boolean repairsOtherKeys) {
      this(rows, deletes, deletePlaces, gone, moves, repairsOtherKeys, Map.of());
    }

    Changes(List<Object[]> rows, List<Object[]> deletes, List<RowKey> gone, MoveLedger moves, boolean repairsOtherKeys,
        Map<RowKey, String> unmerged) {
      this(rows, deletes, new long[0], gone, moves, repairsOtherKeys, unmerged);
    }
  }

  /**
   * What {@link StoredRows#readInOrder} found: {@code rows[i]} is the stored row of the i-th key
   * asked (null when nothing is stored), {@code places[i]} its place in the primary-key index (-1
   * when it holds none).
   */
  public record FoundInOrder(Object[][] rows, long[] places) {}

  /** The need of a key whose stored row is only to be located (to delete it), none of its values. */
  public static final boolean[] LOCATE_ONLY = new boolean[0];

  /** How stored rows are found: the keys to look up, and those whose column values are needed. */
  @FunctionalInterface
  public interface StoredRows {
    Map<RowKey, Object[]> read(Set<RowKey> keys, Set<RowKey> needValues);

    /**
     * As {@link #read(Set, Set)}, told per key which columns' stored values are needed (by table
     * position; null: the whole row); a source that can use it reads only those. Columns not
     * needed may come back as anything.
     */
    default Map<RowKey, Object[]> read(Set<RowKey> keys, Map<RowKey, boolean[]> needColumns) {
      return read(keys, needColumns.keySet());
    }

    /**
     * Every key's stored row, asked and answered in one order, without maps: per key the columns
     * needed (as above) or {@link #LOCATE_ONLY}; null when this source answers only through
     * {@link #read(Set, Map)} (the general path, which the in-order one is compared to).
     */
    default FoundInOrder readInOrder(RowKey[] keys, boolean[][] needs) {
      return null;
    }
  }

  /** The equality-deletes mode's lookup: a filtered scan of the base snapshot. */
  public static StoredRows scanning(Table table, Long baseSnapshot, TableLayout layout) {
    return (keys, needValues) -> baseSnapshot == null || keys.isEmpty()
        ? Collections.emptyMap()
        : StoredRowReader.read(table, baseSnapshot, layout, keys);
  }

  /**
   * @param truncate what a truncate in this batch removes, or null when there is none
   * @param needPartition whether a key's delete must go to the partition its stored row lives in
   * @param ledger the halves of key changes still waiting for their partners, as the base snapshot holds them
   */
  public static Changes resolve(Long baseSnapshot, TableLayout layout, FoldedBatch folded, TruncatePlanner.Plan truncate,
      boolean needPartition, StoredRows storedRows, MoveLedger ledger) {
    MergeRule[] rules = layout.rules();
    MoveLedger waiting = folded.truncates() ? ledger.withoutOlderThan(folded.truncateLsn()) : ledger;
    MovePairing pairing = MovePairing.of(folded, waiting);

    // Keys whose rows a delete half arriving now settles, though this batch has no events for them.
    Map<RowKey, KeyFold> keys = folded.keys(); // copied only to add to: a batch holds hundreds of thousands
    Set<RowKey> repaired = new HashSet<>();
    for (RowKey target : pairing.repairTargets()) {
      if (!keys.containsKey(target)) {
        if (repaired.isEmpty()) {
          keys = new LinkedHashMap<>(keys);
        }
        keys.put(target, KeyFold.rewriteStored(layout.columnCount()));
        repaired.add(target);
      }
    }

    // When the truncate drops every file, nothing stored survives to be deleted key by key.
    boolean wiped = truncate != null && truncate.dropsAllFiles();
    // Every key is looked up when deletes need its stored row's partition (the position mode: its location).
    boolean lookAll = needPartition && !wiped;
    Set<RowKey> lookup = lookAll ? keys.keySet() : new HashSet<>();
    // A key change pairs and carries whole row images (MovedImages, MovePairing): such a batch reads whole rows.
    boolean wholeRows = !folded.arrivals().isEmpty() || !folded.departures().isEmpty() || !waiting.isEmpty();
    if (lookAll && !wholeRows && repaired.isEmpty() && pairing.oldKeys().isEmpty() && baseSnapshot != null && storedRows != null) {
      Changes inOrder = resolveInOrder(layout, keys, truncate, storedRows, pairing, waiting);
      if (inOrder != null) {
        return inOrder;
      }
    }
    // The keys whose stored values are needed, in the fold's order: their key objects were made in that
    // order, so a reader walking them (the index locating each) reads memory forward, not at random.
    Map<RowKey, boolean[]> needColumns = new LinkedHashMap<>(keys.size() * 4 / 3 + 1);
    Map<NeedPattern, boolean[]> patterns = new HashMap<>();
    for (Map.Entry<RowKey, KeyFold> e : keys.entrySet()) {
      KeyFold f = e.getValue();
      if (f.needsStoredValues(rules) || waiting.isTarget(e.getKey())) {
        needColumns.put(e.getKey(), wholeRows ? null : shared(f.storedColumnsNeeded(rules), patterns));
        if (!lookAll) {
          lookup.add(e.getKey());
        }
      }
    }
    if (!pairing.oldKeys().isEmpty()) {
      lookup = new HashSet<>(lookup);
      for (RowKey old : pairing.oldKeys()) {
        lookup.add(old);
        needColumns.put(old, null); // whole: a key change is in play, so wholeRows holds anyway
      }
    }
    Map<RowKey, Object[]> stored = baseSnapshot == null || lookup.isEmpty()
        ? Collections.emptyMap()
        : storedRows.read(lookup, needColumns);
    Map<RowKey, Object[]> merged = waiting.markPending(stored);
    MovedImages images = new MovedImages(keys, merged, waiting, layout);

    List<Object[]> rows = new ArrayList<>(keys.size());
    List<Object[]> deletes = new ArrayList<>();
    List<RowKey> gone = new ArrayList<>();
    Map<RowKey, String> unmerged = new HashMap<>(0);
    for (Map.Entry<RowKey, KeyFold> e : keys.entrySet()) {
      RowKey key = e.getKey();
      KeyFold f = e.getValue();
      Object[] s = stored.get(key);
      if (s == null && repaired.contains(key)) {
        continue; // nothing stored to repair
      }
      Object[] row = null;
      if (f.exists()) {
        Object[] previous = f.movedFrom() == null ? null : images.before(f.movedFrom(), f.movedAtLsn());
        row = resolveOrNote(f, merged == stored ? s : merged.get(key), rules, previous, key, unmerged);
        if (row == null) {
          continue; // the stored row stays as it is
        }
      }
      if (!wiped && baseSnapshot != null) {
        if (s != null) {
          deletes.add(s);
        } else if (!lookup.contains(key)) {
          deletes.add(layout.keyRow(key)); // not looked up: it may be stored, delete to be sure
        }
      }
      if (row != null) {
        rows.add(row);
      } else if (!wiped && baseSnapshot != null) {
        gone.add(key);
      }
    }
    if (truncate != null) {
      for (Object[] row : truncate.rowsToDelete()) {
        deletes.add(row);
        gone.add(layout.keyOfRow(row));
      }
    }
    MoveLedger next = pairing.settle(images, rows, keys.keySet(), layout);
    return new Changes(rows, deletes, gone, next, !repaired.isEmpty(), unmerged);
  }

  /**
   * The key's final row, or null when the batch's values cannot combine with the stored ones (a
   * sum out of its column's range): the key is then noted with the reason, and its stored row
   * stays as it is (its records are rejected, not retried: no retry would make them combine).
   */
  private static Object[] resolveOrNote(KeyFold f, Object[] stored, MergeRule[] rules, Object[] previous, RowKey key,
      Map<RowKey, String> unmerged) {
    try {
      return f.resolve(stored, rules, previous);
    } catch (ArithmeticException | IllegalArgumentException e) {
      unmerged.put(key, String.valueOf(e.getMessage()));
      return null;
    }
  }

  /**
   * The common batch, resolved without a map per key: every key looked up (the position mode), no
   * key change in play. Keys, folds and their stored rows sit side by side in arrays in the fold's
   * order, and each delete carries the index place its lookup found, so the position writer does
   * not look it up again. Null when the source answers only through maps, or a fold moved its row
   * from another key (a source without LSNs): the general path then resolves the batch.
   */
  private static Changes resolveInOrder(TableLayout layout, Map<RowKey, KeyFold> folds, TruncatePlanner.Plan truncate,
      StoredRows storedRows, MovePairing pairing, MoveLedger waiting) {
    MergeRule[] rules = layout.rules();
    int n = folds.size();
    RowKey[] keys = new RowKey[n];
    KeyFold[] fold = new KeyFold[n];
    boolean[][] needs = new boolean[n][];
    Map<NeedPattern, boolean[]> patterns = new HashMap<>();
    int i = 0;
    for (Map.Entry<RowKey, KeyFold> e : folds.entrySet()) {
      KeyFold f = e.getValue();
      if (f.movedFrom() != null) {
        return null;
      }
      keys[i] = e.getKey();
      fold[i] = f;
      boolean[] need = f.storedColumnsNeeded(rules);
      needs[i++] = need == null ? LOCATE_ONLY : shared(need, patterns);
    }
    FoundInOrder found = storedRows.readInOrder(keys, needs);
    if (found == null) {
      return null;
    }
    List<Object[]> rows = new ArrayList<>(n);
    List<Object[]> deletes = new ArrayList<>(n);
    long[] places = new long[n];
    List<RowKey> gone = new ArrayList<>();
    Map<RowKey, String> unmerged = new HashMap<>(0);
    for (i = 0; i < n; i++) {
      Object[] s = found.rows()[i];
      Object[] row = null;
      if (fold[i].exists()) {
        row = resolveOrNote(fold[i], s, rules, null, keys[i], unmerged);
        if (row == null) {
          continue; // the stored row stays as it is
        }
      }
      if (s != null) {
        places[deletes.size()] = found.places()[i];
        deletes.add(s);
      }
      if (row != null) {
        rows.add(row);
      } else {
        gone.add(keys[i]);
      }
    }
    int located = deletes.size();
    if (truncate != null) {
      for (Object[] row : truncate.rowsToDelete()) {
        deletes.add(row);
        gone.add(layout.keyOfRow(row));
      }
    }
    MoveLedger next = pairing.settle(new MovedImages(folds, Map.of(), waiting, layout), rows, folds.keySet(), layout);
    return new Changes(rows, deletes, Arrays.copyOf(places, located), gone, next, false, unmerged);
  }

  /**
   * One array per distinct pattern of needed columns: a batch's keys share a few, and a reader that
   * visits keys in another order than this (the index, in file and position order) finds one array
   * in cache where it found 500,000 scattered ones.
   */
  private static boolean[] shared(boolean[] need, Map<NeedPattern, boolean[]> patterns) {
    return need == null ? null : patterns.computeIfAbsent(new NeedPattern(need), p -> need);
  }

  /** A pattern of needed columns as a map key: equal by contents. */
  private record NeedPattern(boolean[] columns) {
    @Override
    public boolean equals(Object o) {
      return o instanceof NeedPattern p && Arrays.equals(columns, p.columns);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(columns);
    }
  }
}
