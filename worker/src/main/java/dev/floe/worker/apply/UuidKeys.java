package dev.floe.worker.apply;

import dev.floe.worker.fold.RowKey;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.apache.iceberg.DataFile;

/**
 * Key locations for one UUID key column: the key's two halves unboxed in open addressing, file and
 * position packed in one {@code long}, the three side by side. A lookup reads one slot and
 * allocates nothing, where the byte-encoded store ({@link EncodedKeys}) first encoded every key
 * looked up into a new array: the contest's uuid-keyed index spent a fifth of the applying thread in it.
 */
final class UuidKeys extends KeyLocations {
  private static final long EMPTY = -1;
  private static final long REMOVED = -2;
  /** Longs per slot: the key's two halves and its packed location, side by side (one cache line per probe, not three). */
  private static final int STRIDE = 3;

  private final KeyLocations.PackedFiles files = new KeyLocations.PackedFiles();
  /**
   * Per slot: most and least significant bits of the key, then the packed file and position (never
   * negative), or {@link #EMPTY} or {@link #REMOVED}.
   */
  private long[] slots;
  private int capacity;
  private int size;
  /** Slots live or removed: what ends a probe sooner or later. */
  private int used;

  UuidKeys() {
    this(1 << 10);
  }

  /** @param capacity the first table's slots, a power of two (small in tests: long probes, many rebuilds) */
  UuidKeys(int capacity) {
    this.capacity = capacity;
    this.slots = emptySlots(capacity);
  }

  @Override
  long packed(RowKey key) {
    return packedOf((UUID) key.get(0));
  }

  @Override
  long packedOfRow(TableLayout layout, Object[] row) {
    return packedOf((UUID) row[layout.keyPosition(0)]);
  }

  private long packedOf(UUID u) {
    return packedOf(u.getMostSignificantBits(), u.getLeastSignificantBits());
  }

  /** The packed location of the uuid of these two halves, or -1. */
  long packedOf(long m, long l) {
    int slot = find(m, l);
    return slot < 0 ? -1 : slots[slot + 2];
  }

  @Override
  void putRow(TableLayout layout, Object[] row, DataFile file, long position) {
    UUID u = (UUID) row[layout.keyPosition(0)];
    putRaw(u.getMostSignificantBits(), u.getLeastSignificantBits(), file, position);
  }

  @Override
  DataFile file(long packed) {
    return files.file(packed);
  }

  @Override
  void put(RowKey key, DataFile file, long position) {
    UUID u = (UUID) key.get(0);
    putRaw(u.getMostSignificantBits(), u.getLeastSignificantBits(), file, position);
  }

  @Override
  KeyLocations.PackedFiles packedFiles() {
    return files;
  }

  /** Puts the key's two halves themselves (loading a persisted index) at a packed location. */
  @Override
  void putRawPacked(long m, long l, long packed) {
    int slot = find(m, l);
    if (slot >= 0) {
      slots[slot + 2] = packed;
      return;
    }
    if ((used + 1) * 4L > capacity * 3L) {
      // mostly live: grow; mostly removed: rebuild at the same size, which drops them
      rehash(size + 1 > capacity * 3 / 8 ? capacity * 2 : capacity);
    }
    int mask = capacity - 1;
    int i = hash(m, l) & mask;
    while (slots[i * STRIDE + 2] >= 0) {
      i = (i + 1) & mask;
    }
    int at = i * STRIDE;
    if (slots[at + 2] == EMPTY) {
      used++;
    }
    slots[at] = m;
    slots[at + 1] = l;
    slots[at + 2] = packed;
    size++;
  }

  @Override
  void ensureCapacity(int n) {
    int needed = capacity;
    while ((used + (long) n) * 4L > needed * 3L) {
      needed *= 2;
    }
    if (needed != capacity) {
      rehash(needed);
    }
  }

  @Override
  void remove(RowKey key) {
    UUID u = (UUID) key.get(0);
    int slot = find(u.getMostSignificantBits(), u.getLeastSignificantBits());
    if (slot >= 0) {
      slots[slot + 2] = REMOVED;
      size--;
    }
  }

  @Override
  void removeFiles(Predicate<String> path) {
    boolean[] gone = files.matching(path);
    if (gone == null) {
      return;
    }
    for (int at = 0; at < slots.length; at += STRIDE) {
      if (slots[at + 2] >= 0 && KeyLocations.PackedFiles.in(slots[at + 2], gone)) {
        slots[at + 2] = REMOVED;
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
    forEachRaw((m, l, file, position) -> action.accept(new RowKey(new Object[] {new UUID(m, l)}), new PrimaryKeyIndex.Location(file, position)));
  }

  @Override
  boolean forEachRaw(RawEntry action) {
    for (int at = 0; at < slots.length; at += STRIDE) {
      if (slots[at + 2] >= 0) {
        action.accept(slots[at], slots[at + 1], files.file(slots[at + 2]), KeyLocations.PackedFiles.position(slots[at + 2]));
      }
    }
    return true;
  }

  @Override
  long footprintBytes() {
    return slots.length * 8L;
  }

  /** The array offset of the key's slot, or -1. */
  private int find(long m, long l) {
    int mask = capacity - 1;
    for (int i = hash(m, l) & mask; ; i = (i + 1) & mask) {
      int at = i * STRIDE;
      long location = slots[at + 2];
      if (location == EMPTY) {
        return -1;
      }
      if (location >= 0 && slots[at] == m && slots[at + 1] == l) {
        return at;
      }
    }
  }

  private void rehash(int newCapacity) {
    long[] old = slots;
    slots = emptySlots(newCapacity);
    capacity = newCapacity;
    used = 0;
    int mask = newCapacity - 1;
    for (int from = 0; from < old.length; from += STRIDE) {
      if (old[from + 2] >= 0) {
        int i = hash(old[from], old[from + 1]) & mask;
        while (slots[i * STRIDE + 2] != EMPTY) {
          i = (i + 1) & mask;
        }
        System.arraycopy(old, from, slots, i * STRIDE, STRIDE);
        used++;
      }
    }
  }

  private static long[] emptySlots(int capacity) {
    long[] slots = new long[capacity * STRIDE];
    for (int at = 2; at < slots.length; at += STRIDE) {
      slots[at] = EMPTY;
    }
    return slots;
  }

  private static int hash(long m, long l) {
    return (int) mix(m, l);
  }

  /**
   * Both halves mixed into one long (murmur3's finalizer over {@code m * C + l}): time-ordered UUIDs
   * differ in few bits of one half. Keys of one mix are rare but exist; callers compare both halves.
   */
  static long mix(long m, long l) {
    long h = m * 0x9E3779B97F4A7C15L + l;
    h = (h ^ (h >>> 33)) * 0xff51afd7ed558ccdL;
    h = (h ^ (h >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return h ^ (h >>> 33);
  }
}
