package dev.floe.worker.apply;

import dev.floe.worker.decode.PackedChange;
import dev.floe.worker.fold.MergeRule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.iceberg.types.Type;

/**
 * The columns of a packed batch whose rule is not {@code last}, combined per key as its upserts
 * come ({@link PackedResolver}): {@code last-non-null} and {@code first} remember which change
 * holds the value, {@code sum}, {@code min} and {@code max} (long and int columns) keep it unboxed.
 * A delete starts the key afresh and discards its stored value, as {@code KeyFold} does; the final
 * value combines the batch's with the stored one the index's merge state holds. Primitive arrays
 * indexed by key slot, so a batch of 200k keys makes no object per key.
 */
final class PackedMerges {
  private final TableLayout layout;
  /** Table positions of the merged columns. */
  private final int[] positions;
  private final MergeRule[] rules;
  /** Per merged column: an int column, whose sum must stay an int. */
  private final boolean[] ints;
  /** Per merged column and key slot: the index of the change whose value the key has so far, -1 for none (null). */
  private final int[][] pick;
  /** Per merged column of a numeric rule and key slot: the combined value, where {@link #pick} is set. */
  private final long[][] combined;
  /** Keys this batch deleted: their stored values are gone. */
  private final BitSet deleted = new BitSet();

  private PackedMerges(TableLayout layout, int[] positions, MergeRule[] rules, boolean[] ints, int capacity) {
    this.layout = layout;
    this.positions = positions;
    this.rules = rules;
    this.ints = ints;
    this.pick = new int[positions.length][];
    this.combined = new long[positions.length][];
    for (int j = 0; j < positions.length; j++) {
      pick[j] = new int[capacity];
      if (numeric(rules[j])) {
        combined[j] = new long[capacity];
      }
    }
  }

  /** The merged columns of a layout's packed batches, for up to {@code capacity} keys. */
  static PackedMerges of(TableLayout layout, int capacity) {
    List<Integer> positions = new ArrayList<>();
    int width = layout.columnCount() - (layout.lsnPosition() >= 0 ? 1 : 0);
    for (int i = 0; i < width; i++) {
      if (layout.rules()[i] != MergeRule.LAST && i != layout.keyPosition(0)) {
        positions.add(i);
      }
    }
    int[] at = positions.stream().mapToInt(Integer::intValue).toArray();
    MergeRule[] rules = new MergeRule[at.length];
    boolean[] ints = new boolean[at.length];
    for (int j = 0; j < at.length; j++) {
      rules[j] = layout.rules()[at[j]];
      ints[j] = layout.column(at[j]).type().typeId() == Type.TypeID.INTEGER;
    }
    return new PackedMerges(layout, at, rules, ints, positions.isEmpty() ? 0 : capacity);
  }

  /** The table positions of the merged columns, in the order {@link #finalValues} gives them. */
  int[] positions() {
    return positions;
  }

  /** A key met for the first time in this batch. */
  void newKey(int slot) {
    for (int[] p : pick) {
      p[slot] = -1;
    }
  }

  /** The key was deleted: what came before is gone, the stored row included. */
  void delete(int slot) {
    if (positions.length == 0) {
      return;
    }
    deleted.set(slot);
    for (int[] p : pick) {
      p[slot] = -1;
    }
  }

  /**
   * Combines the upsert at {@code index} of the batch into its key's values; false when a sum
   * leaves its column's range (the general path rejects that record with its reason).
   */
  boolean upsert(int slot, int index, PackedChange c) {
    for (int j = 0; j < positions.length; j++) {
      int position = positions[j];
      if (c.isNullAt(position)) {
        continue; // null is what every rule but last passes over
      }
      int[] p = pick[j];
      switch (rules[j]) {
        case LAST_NON_NULL -> p[slot] = index;
        case FIRST -> {
          if (p[slot] < 0) {
            p[slot] = index;
          }
        }
        case SUM, MIN, MAX -> {
          long v = c.numberAt(position);
          long[] values = combined[j];
          if (p[slot] < 0) {
            values[slot] = v;
          } else if (rules[j] == MergeRule.SUM) {
            long sum;
            try {
              sum = Math.addExact(values[slot], v);
            } catch (ArithmeticException e) {
              return false;
            }
            if (ints[j] && sum != (int) sum) {
              return false;
            }
            values[slot] = sum;
          } else if (rules[j] == MergeRule.MIN ? v < values[slot] : v > values[slot]) {
            values[slot] = v;
          }
          p[slot] = index;
        }
        default -> throw new IllegalStateException("rule " + rules[j] + " is not merged packed");
      }
    }
    return true;
  }

  /**
   * The merged columns' final values of the written rows: {@code out[j][row]} for the row of key
   * slot {@code slotOfRow[row]}, the batch's value combined with the stored one where the key was
   * located ({@code places}) and not deleted first. A value the batch gave and the stored one does
   * not replace stays in its change: {@code out[j][row]} is then that {@link PackedChange}, whose
   * value {@link #valueOf} makes as the writer takes the row (a string made here would be made
   * twice, and held from now until then). Null when a stored value is not held by the merge state
   * or a combination fails: the general path applies the batch instead.
   */
  Object[][] finalValues(List<PackedChange> changes, int[] slotOfRow, int rows, long[] places, PrimaryKeyIndex index) {
    Object[][] out = new Object[positions.length][];
    if (positions.length == 0) {
      return out;
    }
    for (int j = 0; j < positions.length; j++) {
      out[j] = new Object[rows];
    }
    long[] storedPlaces = new long[rows];
    int[] storedRow = new int[rows];
    int stored = 0;
    for (int row = 0; row < rows; row++) {
      int slot = slotOfRow[row];
      boolean readsStored = false;
      for (int j = 0; j < positions.length; j++) {
        out[j][row] = batchValue(j, slot, changes);
        readsStored |= rules[j] != MergeRule.LAST_NON_NULL || out[j][row] == null; // a last non-null value the batch gave stands
      }
      if (readsStored && places[slot] >= 0 && !deleted.get(slot)) {
        storedPlaces[stored] = places[slot];
        storedRow[stored++] = row;
      }
    }
    if (stored == 0) {
      return out;
    }
    Object[][] held = new Object[positions.length][stored];
    if (!index.heldValues(layout, positions, storedPlaces, stored, held)) {
      return null;
    }
    for (int k = 0; k < stored; k++) {
      int row = storedRow[k];
      for (int j = 0; j < positions.length; j++) {
        Object batch = out[j][row];
        if (batch instanceof PackedChange c) {
          if (rules[j] == MergeRule.FIRST && held[j][k] != null) {
            out[j][row] = held[j][k]; // the first value is the stored one
          }
          continue; // else the batch's, still in its change (last non-null: the batch gave one, read above only for other columns)
        }
        try {
          out[j][row] = rules[j].combine(held[j][k], batch);
        } catch (ArithmeticException | IllegalArgumentException e) {
          return null;
        }
      }
    }
    return out;
  }

  /**
   * The key's value of a merged column from this batch alone: boxed for a numeric rule, the change
   * that holds it for the others ({@link #finalValues}); null where the batch gave none.
   */
  private Object batchValue(int j, int slot, List<PackedChange> changes) {
    int at = pick[j][slot];
    if (at < 0) {
      return null;
    }
    if (!numeric(rules[j])) {
      return changes.get(at);
    }
    long v = combined[j][slot];
    return ints[j] ? (Object) (int) v : (Object) v;
  }

  /** A final value of {@link #finalValues} at a table position, as the writer takes it. */
  static Object valueOf(Object merged, int position) {
    return merged instanceof PackedChange c ? c.valueToWrite(position) : merged;
  }

  private static boolean numeric(MergeRule rule) {
    return rule == MergeRule.SUM || rule == MergeRule.MIN || rule == MergeRule.MAX;
  }

  @Override
  public String toString() {
    return "PackedMerges" + Arrays.toString(rules) + " at " + Arrays.toString(positions);
  }
}
