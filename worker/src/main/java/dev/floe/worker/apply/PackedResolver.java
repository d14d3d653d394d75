package dev.floe.worker.apply;

import com.carrotsearch.hppc.LongIntHashMap;
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
 * batch ({@link EventPacker}: every merge rule {@code last}, one integer key, no key change, no
 * truncate, no TOAST placeholder): per key its last change wins, its stored row (if the index
 * locates one) is deleted by position, and the winning upsert's row is written. The same outcome as
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
   */
  public static Resolved resolve(List<PackedChange> changes, EventPacker packer, PrimaryKeyIndex index) {
    int n = changes.size();
    LongIntHashMap slotOf = new LongIntHashMap(n);
    long[] keys = new long[n];
    int[] last = new int[n]; // per key, in first-seen order: the index of its last upsert, -1 when it ends deleted
    int k = 0;
    for (int i = 0; i < n; i++) {
      PackedChange c = changes.get(i);
      int at = slotOf.indexOf(c.key()); // one probe for the lookup and the insert
      int s;
      if (slotOf.indexExists(at)) {
        s = slotOf.indexGet(at);
      } else {
        s = k++;
        slotOf.indexInsert(at, c.key(), s);
        keys[s] = c.key();
      }
      last[s] = c.isDelete() ? -1 : i;
    }
    int keyCount = k;
    long[] places = new long[keyCount];
    TwoCores.forRange(keyCount, (from, to) -> {
      for (int i = from; i < to; i++) {
        places[i] = index.packedOfKey(keys[i], packer);
      }
    });
    long[] located = new long[keyCount];
    int deletes = 0;
    PackedChange[] rows = new PackedChange[keyCount];
    int written = 0;
    List<RowKey> gone = new ArrayList<>();
    for (int s = 0; s < keyCount; s++) {
      if (places[s] >= 0) {
        located[deletes++] = places[s];
      }
      if (last[s] >= 0) {
        rows[written++] = changes.get(last[s]);
      } else {
        gone.add(new RowKey(new Object[] {packer.keyObject(keys[s])}));
      }
    }
    // The position writer needs only the places of the stored rows it deletes, all known here.
    ChangeResolver.Changes out = new ChangeResolver.Changes(new PackedRows(rows, 0, written, packer),
        Collections.<Object[]>nCopies(deletes, null), Arrays.copyOf(located, deletes), gone, MoveLedger.EMPTY, false);
    return new Resolved(out, gone.size());
  }

  /**
   * Final rows made again from their packed changes on each read: the writer encodes each row as it
   * takes it and the index takes each key, so no row of the batch is held while it is written.
   */
  static final class PackedRows extends AbstractList<Object[]> implements RandomAccess {
    private final PackedChange[] changes;
    private final int from;
    private final int to;
    private final EventPacker packer;

    PackedRows(PackedChange[] changes, int from, int to, EventPacker packer) {
      this.changes = changes;
      this.from = from;
      this.to = to;
      this.packer = packer;
    }

    @Override
    public Object[] get(int i) {
      return packer.row(changes[from + java.util.Objects.checkIndex(i, to - from)]);
    }

    /** The key of the row at {@code i}, without making the row. */
    long keyAt(int i) {
      return changes[from + java.util.Objects.checkIndex(i, to - from)].key();
    }

    @Override
    public int size() {
      return to - from;
    }

    @Override
    public List<Object[]> subList(int fromIndex, int toIndex) {
      java.util.Objects.checkFromToIndex(fromIndex, toIndex, size());
      return new PackedRows(changes, from + fromIndex, from + toIndex, packer);
    }
  }
}
