package dev.floe.worker.apply;

import com.carrotsearch.hppc.LongIntHashMap;
import com.carrotsearch.hppc.ObjectIntHashMap;
import dev.floe.worker.decode.PackedChange;
import dev.floe.worker.fold.RowKey;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.RandomAccess;

/**
 * Folds and resolves a batch of {@link PackedChange packed} changes, the position mode's common
 * batch ({@link EventPacker}: one integer or uuid key, merge rules the index's merge state serves,
 * no key change, no truncate, no TOAST placeholder): per key its last change decides whether a row
 * remains, a column of rule {@code last} takes the last upsert's value, the others combine the
 * upserts since the key's last delete in this batch ({@link PackedMerges}) and then the stored
 * value the merge state holds (when the batch did not delete the key first); its stored row (if the
 * index locates one) is deleted by position, and the final row is written. The same outcome as
 * {@code BatchFolder.fold} and {@code ChangeResolver.resolve} (the general path, which a property
 * test compares this to), without an object per key or a row per event held meanwhile: keys and
 * places sit in primitive arrays, and the rows are made again from the packed events as the writer
 * takes them ({@link PackedRows}).
 */
public final class PackedResolver {
  private PackedResolver() {}

  /** The changes to write, and how many keys the batch leaves deleted. */
  public record Resolved(ChangeResolver.Changes changes, int deletedKeys) {}

  /**
   * @param changes the batch's changes in log order (topic, partition, offset)
   * @param packer the packer every change was packed by
   * @return the resolved batch, or null where a merge cannot be made exactly here (a sum that
   *     overflows its column, a stored value the merge state does not hold): the caller applies
   *     the batch through the general path, which words such a failure per record
   */
  public static Resolved resolve(List<PackedChange> changes, EventPacker packer, PrimaryKeyIndex index) {
    int n = changes.size();
    boolean uuid = packer.slots().uuidKey();
    KeySlots slotOf = uuid ? new UuidSlots(n) : new LongSlots(n);
    long[] keys = new long[n];
    long[] keysLow = uuid ? new long[n] : null;
    int[] last = new int[n]; // per key, in first-seen order: the index of its last upsert, -1 when it ends deleted
    PackedMerges merges = PackedMerges.of(packer.layout(), n);
    int k = 0;
    for (int i = 0; i < n; i++) {
      PackedChange c = changes.get(i);
      int s = slotOf.slot(c, k);
      if (s == k) {
        keys[s] = c.key();
        if (uuid) {
          keysLow[s] = c.keyLow();
        }
        merges.newKey(s);
        k++;
      }
      if (c.isDelete()) {
        last[s] = -1;
        merges.delete(s);
      } else {
        last[s] = i;
        if (!merges.upsert(s, i, c)) {
          return null;
        }
      }
    }
    int keyCount = k;
    long[] places = new long[keyCount];
    TwoCores.forRange(keyCount, (from, to) -> {
      for (int i = from; i < to; i++) {
        places[i] = index.packedOfKey(keys[i], uuid ? keysLow[i] : 0, packer);
      }
    });
    long[] located = new long[keyCount];
    int deletes = 0;
    PackedChange[] rows = new PackedChange[keyCount];
    int[] slotOfRow = new int[keyCount];
    int written = 0;
    List<RowKey> gone = new ArrayList<>();
    for (int s = 0; s < keyCount; s++) {
      if (places[s] >= 0) {
        located[deletes++] = places[s];
      }
      if (last[s] >= 0) {
        slotOfRow[written] = s;
        rows[written++] = changes.get(last[s]);
      } else {
        gone.add(new RowKey(new Object[] {packer.keyObject(keys[s], uuid ? keysLow[s] : 0)}));
      }
    }
    Object[][] merged = merges.finalValues(changes, slotOfRow, written, places, index);
    if (merged == null) {
      return null;
    }
    // The position writer needs only the places of the stored rows it deletes, all known here.
    ChangeResolver.Changes out = new ChangeResolver.Changes(new PackedRows(rows, 0, written, packer, merges.positions(), merged),
        Collections.<Object[]>nCopies(deletes, null), Arrays.copyOf(located, deletes), gone, MoveLedger.EMPTY, false);
    return new Resolved(out, gone.size());
  }

  /** Each key's slot, in first-seen order. */
  private interface KeySlots {
    /** The slot of the change's key: {@code next} when the key is new (and then it is taken). */
    int slot(PackedChange c, int next);
  }

  /** Integer keys: one probe for the lookup and the insert. */
  private static final class LongSlots implements KeySlots {
    private final LongIntHashMap map;

    LongSlots(int n) {
      map = new LongIntHashMap(n);
    }

    @Override
    public int slot(PackedChange c, int next) {
      int at = map.indexOf(c.key());
      if (map.indexExists(at)) {
        return map.indexGet(at);
      }
      map.indexInsert(at, c.key(), next);
      return next;
    }
  }

  /**
   * Uuid keys, by both halves mixed into one long: a slot found is checked against the key's
   * halves, and the rare other key of the same mix goes to a map of its own, by its {@code UUID}.
   */
  private static final class UuidSlots implements KeySlots {
    private final LongIntHashMap map;
    private final long[] high;
    private final long[] low;
    /** Keys whose mix another key of the batch took first. */
    private ObjectIntHashMap<java.util.UUID> collided;

    UuidSlots(int n) {
      map = new LongIntHashMap(n);
      high = new long[n];
      low = new long[n];
    }

    @Override
    public int slot(PackedChange c, int next) {
      long h = c.key();
      long l = c.keyLow();
      long mix = UuidKeys.mix(h, l);
      int at = map.indexOf(mix);
      if (!map.indexExists(at)) {
        map.indexInsert(at, mix, next);
        high[next] = h;
        low[next] = l;
        return next;
      }
      int s = map.indexGet(at);
      if (high[s] == h && low[s] == l) {
        return s;
      }
      if (collided == null) {
        collided = new ObjectIntHashMap<>();
      }
      java.util.UUID key = new java.util.UUID(h, l);
      int other = collided.getOrDefault(key, -1);
      if (other >= 0) {
        return other;
      }
      collided.put(key, next);
      return next;
    }
  }

  /**
   * Final rows made again from their packed changes on each read, the merged columns' values put
   * in: the writer encodes each row as it takes it and the index takes each key, so no row of the
   * batch is held while it is written.
   */
  static final class PackedRows extends AbstractList<Object[]> implements RandomAccess {
    private final PackedChange[] changes;
    private final int from;
    private final int to;
    private final EventPacker packer;
    /** The table positions of the merged columns, and their values by row ({@code merged[j][row]}). */
    private final int[] mergedPositions;
    private final Object[][] merged;

    PackedRows(PackedChange[] changes, int from, int to, EventPacker packer, int[] mergedPositions, Object[][] merged) {
      this.changes = changes;
      this.from = from;
      this.to = to;
      this.packer = packer;
      this.mergedPositions = mergedPositions;
      this.merged = merged;
    }

    @Override
    public Object[] get(int i) {
      int at = from + java.util.Objects.checkIndex(i, to - from);
      Object[] row = packer.row(changes[at]);
      for (int j = 0; j < mergedPositions.length; j++) {
        row[mergedPositions[j]] = PackedMerges.valueOf(merged[j][at], mergedPositions[j]);
      }
      return row;
    }

    /** The value at a table position of the row at {@code i}, as the writer takes it, without making the row. */
    Object valueAt(int i, int position) {
      int at = from + java.util.Objects.checkIndex(i, to - from);
      for (int j = 0; j < mergedPositions.length; j++) {
        if (mergedPositions[j] == position) {
          return PackedMerges.valueOf(merged[j][at], position);
        }
      }
      return changes[at].valueToWrite(position);
    }

    /** The key of the row at {@code i} (a uuid's high half), without making the row. */
    long keyAt(int i) {
      return changes[from + java.util.Objects.checkIndex(i, to - from)].key();
    }

    /** The low half of a uuid key of the row at {@code i}; 0 for an integer key. */
    long keyLowAt(int i) {
      return changes[from + java.util.Objects.checkIndex(i, to - from)].keyLow();
    }

    @Override
    public int size() {
      return to - from;
    }

    @Override
    public List<Object[]> subList(int fromIndex, int toIndex) {
      java.util.Objects.checkFromToIndex(fromIndex, toIndex, size());
      return new PackedRows(changes, from + fromIndex, from + toIndex, packer, mergedPositions, merged);
    }
  }
}
