package dev.floe.worker.apply;

import dev.floe.worker.fold.FoldedBatch;
import dev.floe.worker.fold.KeyFold;
import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.fold.RowKey;
import dev.floe.worker.fold.Unchanged;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Turns a folded batch into final rows and deletes, reading the stored rows it depends on: for
 * merge rules and TOAST placeholders, for the partition a key's stored row lives in, and for the
 * previous image of a row whose primary key changed (whose old row may already be gone: then it is
 * read from earlier snapshots).
 */
public final class ChangeResolver {
  /** How many snapshots back the previous image of a re-keyed row is searched for. */
  private static final int HISTORY_DEPTH = 50;

  private ChangeResolver() {}

  /** The final rows to write, and the stored rows (or bare keys) to delete. */
  public record Changes(List<Object[]> rows, List<Object[]> deletes) {}

  /** How stored rows are found: the keys to look up, and those whose column values are needed. */
  @FunctionalInterface
  public interface StoredRows {
    Map<RowKey, Object[]> read(Set<RowKey> keys, Set<RowKey> needValues);
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
   */
  public static Changes resolve(Table table, Long baseSnapshot, TableLayout layout, FoldedBatch folded, TruncatePlanner.Plan truncate,
      boolean needPartition, StoredRows storedRows) {
    MergeRule[] rules = layout.rules();
    // When the truncate drops every file, nothing stored survives to be deleted key by key.
    boolean wiped = truncate != null && truncate.dropsAllFiles();
    Set<RowKey> lookup = new HashSet<>();
    Set<RowKey> needValues = new HashSet<>();
    Set<RowKey> previousKeys = new HashSet<>();
    for (Map.Entry<RowKey, KeyFold> e : folded.keys().entrySet()) {
      KeyFold f = e.getValue();
      if (f.needsStoredValues(rules)) {
        needValues.add(e.getKey());
      }
      // A delete may need to know where the stored row lives (its partition, or its position).
      if ((needPartition && !wiped) || f.needsStoredValues(rules)) {
        lookup.add(e.getKey());
      }
      if (f.hasUnchanged() && f.movedFrom() != null) {
        previousKeys.add(f.movedFrom());
      }
    }
    Map<RowKey, Long> movedAt = new HashMap<>();
    folded.keys().values().forEach(f -> {
      if (f.movedFrom() != null && f.movedAtLsn() != null) {
        movedAt.merge(f.movedFrom(), f.movedAtLsn(), Math::max);
      }
    });
    addEarlierMoves(folded, previousKeys, movedAt);
    lookup.addAll(previousKeys);
    needValues.addAll(previousKeys);
    Map<RowKey, Object[]> stored = baseSnapshot == null || lookup.isEmpty()
        ? Collections.emptyMap()
        : storedRows.read(lookup, needValues);
    Map<RowKey, Object[]> previousImages = previousImages(table, baseSnapshot, layout, folded, stored, previousKeys, movedAt);

    List<Object[]> rows = new ArrayList<>(folded.keys().size());
    List<Object[]> deletes = new ArrayList<>();
    for (Map.Entry<RowKey, KeyFold> e : folded.keys().entrySet()) {
      RowKey key = e.getKey();
      KeyFold f = e.getValue();
      Object[] s = stored.get(key);
      if (!wiped && baseSnapshot != null) {
        if (s != null) {
          deletes.add(s);
        } else if (!lookup.contains(key)) {
          deletes.add(layout.keyRow(key)); // not looked up: it may be stored, delete to be sure
        }
      }
      if (f.exists()) {
        Object[] previous = f.movedFrom() == null ? null : previousImages.get(f.movedFrom());
        rows.add(f.resolve(s, rules, previous));
      }
    }
    if (truncate != null) {
      deletes.addAll(truncate.rowsToDelete());
    }
    return new Changes(rows, deletes);
  }

  /**
   * A row moved more than once in one batch (1 -> 6 -> 3) takes its unchanged values from where it
   * started: adds the keys it passed through, and when it left each, to {@code keys} and {@code movedAt}.
   */
  private static void addEarlierMoves(FoldedBatch folded, Set<RowKey> keys, Map<RowKey, Long> movedAt) {
    ArrayDeque<RowKey> todo = new ArrayDeque<>(keys);
    while (!todo.isEmpty()) {
      RowKey key = todo.pop();
      KeyFold.Move earlier = earlierMove(folded.keys().get(key), movedAt, key);
      if (earlier != null && keys.add(earlier.from())) {
        if (earlier.atLsn() != null) {
          movedAt.merge(earlier.from(), earlier.atLsn(), Math::max);
        }
        todo.push(earlier.from());
      }
    }
  }

  /** How the image of {@code fold}'s key that a later move took had itself arrived there, or null. */
  private static KeyFold.Move earlierMove(KeyFold fold, Map<RowKey, Long> movedAt, RowKey key) {
    if (fold == null) {
      return null;
    }
    if (fold.deletedInBatch()) {
      return fold.moveBeforeDeleteAt(movedAt.get(key));
    }
    return fold.movedFrom() == null ? null : new KeyFold.Move(fold.movedFrom(), fold.movedAtLsn());
  }

  /**
   * The row under {@code old} just before a primary-key update moved it away, its unchanged values
   * taken from the key it had itself come from in this batch, if any.
   */
  private static Object[] imageBeforeMove(RowKey old, FoldedBatch folded, Map<RowKey, Object[]> stored, Map<RowKey, Long> movedAt,
      MergeRule[] rules, Set<RowKey> visiting) {
    KeyFold fold = folded.keys().get(old);
    if (fold == null) {
      return stored.get(old);
    }
    KeyFold.Move earlier = visiting.add(old) ? earlierMove(fold, movedAt, old) : null; // a cycle ends the chain
    Object[] before = earlier == null ? null : imageBeforeMove(earlier.from(), folded, stored, movedAt, rules, visiting);
    if (fold.deletedInBatch()) {
      // the key change's delete half: the row as it was just before it (the old key may be re-used after)
      Object[] image = fold.imageBeforeDeleteAt(movedAt.get(old), stored.get(old), rules);
      return before == null || image == null ? image : fillUnchanged(image, before);
    }
    // the delete half is still to come (its partition lags): the row as it is now
    return fold.resolve(stored.get(old), rules, before);
  }

  private static Object[] fillUnchanged(Object[] image, Object[] from) {
    Object[] out = image.clone();
    for (int i = 0; i < out.length; i++) {
      if (out[i] == Unchanged.VALUE) {
        out[i] = from[i];
      }
    }
    return out;
  }

  private static Map<RowKey, Object[]> previousImages(
      Table table, Long baseSnapshot, TableLayout layout, FoldedBatch folded, Map<RowKey, Object[]> stored, Set<RowKey> keys,
      Map<RowKey, Long> movedAt) {
    Map<RowKey, Object[]> images = new HashMap<>();
    Set<RowKey> missing = new HashSet<>();
    for (RowKey old : keys) {
      Object[] image = imageBeforeMove(old, folded, stored, movedAt, layout.rules(), new HashSet<>());
      if (image != null) {
        images.put(old, image);
      } else {
        missing.add(old);
      }
    }
    // The old row was deleted by an earlier batch (its partition ran ahead): read it as it was.
    Snapshot s = baseSnapshot == null ? null : table.snapshot(baseSnapshot);
    for (int depth = 0; !missing.isEmpty() && s != null && s.parentId() != null && depth < HISTORY_DEPTH; depth++) {
      s = table.snapshot(s.parentId());
      if (s != null) {
        Map<RowKey, Object[]> found = StoredRowReader.read(table, s.snapshotId(), layout, missing);
        images.putAll(found);
        missing.removeAll(found.keySet());
      }
    }
    return images;
  }
}
