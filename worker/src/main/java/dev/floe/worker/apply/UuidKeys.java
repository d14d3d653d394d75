package dev.floe.worker.apply;

import dev.floe.worker.fold.RowKey;
import java.util.Arrays;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.apache.iceberg.DataFile;

/**
 * Key locations for one UUID key column: the key's two halves unboxed in open addressing, file and
 * position packed in one {@code long}. A lookup reads three arrays and allocates nothing, where the
 * byte-encoded store ({@link EncodedKeys}) encoded every looked-up key into a new array first: the
 * contest's uuid-keyed index spent a fifth of the applying thread in it.
 */
final class UuidKeys extends KeyLocations {
  private static final long EMPTY = -1;
  private static final long REMOVED = -2;

  private final KeyLocations.PackedFiles files = new KeyLocations.PackedFiles();
  private long[] most;
  private long[] least;
  /** Slot → packed file and position (never negative), or {@link #EMPTY} or {@link #REMOVED}. */
  private long[] locations;
  private int size;
  /** Slots live or removed: what ends a probe sooner or later. */
  private int used;

  UuidKeys() {
    this(1 << 10);
  }

  /** @param capacity the first table's slots, a power of two (small in tests: long probes, many rebuilds) */
  UuidKeys(int capacity) {
    most = new long[capacity];
    least = new long[capacity];
    locations = emptySlots(capacity);
  }

  @Override
  PrimaryKeyIndex.Location get(RowKey key) {
    UUID u = (UUID) key.get(0);
    int slot = find(u.getMostSignificantBits(), u.getLeastSignificantBits());
    return slot < 0 ? null : files.unpack(locations[slot]);
  }

  @Override
  void put(RowKey key, DataFile file, long position) {
    UUID u = (UUID) key.get(0);
    long packed = files.pack(file, position);
    long m = u.getMostSignificantBits();
    long l = u.getLeastSignificantBits();
    int slot = find(m, l);
    if (slot >= 0) {
      locations[slot] = packed;
      return;
    }
    if ((used + 1) * 4L > locations.length * 3L) {
      // mostly live: grow; mostly removed: rebuild at the same size, which drops them
      rehash(size + 1 > locations.length * 3 / 8 ? locations.length * 2 : locations.length);
    }
    int mask = locations.length - 1;
    int i = hash(m, l) & mask;
    while (locations[i] >= 0) {
      i = (i + 1) & mask;
    }
    if (locations[i] == EMPTY) {
      used++;
    }
    most[i] = m;
    least[i] = l;
    locations[i] = packed;
    size++;
  }

  @Override
  void remove(RowKey key) {
    UUID u = (UUID) key.get(0);
    int slot = find(u.getMostSignificantBits(), u.getLeastSignificantBits());
    if (slot >= 0) {
      locations[slot] = REMOVED;
      size--;
    }
  }

  @Override
  void removeFiles(Predicate<String> path) {
    boolean[] gone = files.matching(path);
    if (gone == null) {
      return;
    }
    for (int i = 0; i < locations.length; i++) {
      if (locations[i] >= 0 && KeyLocations.PackedFiles.in(locations[i], gone)) {
        locations[i] = REMOVED;
        size--;
      }
    }
  }

  @Override
  int size() {
    return size;
  }

  @Override
  void forEach(BiConsumer<RowKey, PrimaryKeyIndex.Location> action) {
    for (int i = 0; i < locations.length; i++) {
      if (locations[i] >= 0) {
        action.accept(new RowKey(new Object[] {new UUID(most[i], least[i])}), files.unpack(locations[i]));
      }
    }
  }

  @Override
  long footprintBytes() {
    return locations.length * 24L;
  }

  private int find(long m, long l) {
    int mask = locations.length - 1;
    for (int i = hash(m, l) & mask; locations[i] != EMPTY; i = (i + 1) & mask) {
      if (locations[i] >= 0 && most[i] == m && least[i] == l) {
        return i;
      }
    }
    return -1;
  }

  private void rehash(int capacity) {
    long[] oldMost = most;
    long[] oldLeast = least;
    long[] oldLocations = locations;
    most = new long[capacity];
    least = new long[capacity];
    locations = emptySlots(capacity);
    used = 0;
    int mask = capacity - 1;
    for (int s = 0; s < oldLocations.length; s++) {
      if (oldLocations[s] >= 0) {
        int i = hash(oldMost[s], oldLeast[s]) & mask;
        while (locations[i] != EMPTY) {
          i = (i + 1) & mask;
        }
        most[i] = oldMost[s];
        least[i] = oldLeast[s];
        locations[i] = oldLocations[s];
        used++;
      }
    }
  }

  private static long[] emptySlots(int capacity) {
    long[] slots = new long[capacity];
    Arrays.fill(slots, EMPTY);
    return slots;
  }

  /** Both halves mixed (murmur3's finalizer): time-ordered UUIDs differ in few bits of one half. */
  private static int hash(long m, long l) {
    long h = m * 0x9E3779B97F4A7C15L + l;
    h = (h ^ (h >>> 33)) * 0xff51afd7ed558ccdL;
    h = (h ^ (h >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return (int) (h ^ (h >>> 33));
  }
}
