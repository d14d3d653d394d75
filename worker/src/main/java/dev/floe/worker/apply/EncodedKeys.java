package dev.floe.worker.apply;

import dev.floe.worker.fold.RowKey;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;

/**
 * Key locations for string, UUID, decimal and composite keys without an object per key: each key
 * is encoded with Iceberg's single-value serialization (length-prefixed per column when there are
 * several) into one shared byte arena, found through an open-addressing table of (arena offset,
 * hash, packed file and position). A 36-character string key takes about 100 bytes with all
 * slack counted, against about 200 in a hash map of boxed row keys and locations.
 */
final class EncodedKeys extends KeyLocations {
  private static final int EMPTY = 0;
  private static final int REMOVED = -1;

  private final Type[] types;
  private final int compactAfterBytes;
  private final PackedFiles files = new PackedFiles();
  /** Slot → arena offset + 1 of the key; {@link #EMPTY} or {@link #REMOVED}. */
  private int[] slots = new int[1 << 10];
  private int[] hashes = new int[1 << 10];
  private long[] locations = new long[1 << 10];
  private byte[] arena = new byte[1 << 14];
  private int arenaSize;
  private int garbage;
  private int size;
  private int used;

  EncodedKeys(Type[] types) {
    this(types, 1 << 20);
  }

  /** @param compactAfterBytes arena bytes of removed keys tolerated before they are reclaimed */
  EncodedKeys(Type[] types, int compactAfterBytes) {
    this.types = types;
    this.compactAfterBytes = compactAfterBytes;
  }

  /** Key types whose table values are what Iceberg's single-value serialization takes. */
  static boolean encodes(Type type) {
    return switch (type.typeId()) {
      case INTEGER, LONG, STRING, UUID, DECIMAL, BOOLEAN -> true;
      default -> false;
    };
  }

  @Override
  long packed(RowKey key) {
    byte[] k = encode(key);
    int slot = find(k, mix(Arrays.hashCode(k)));
    return slot < 0 ? -1 : locations[slot];
  }

  @Override
  DataFile file(long packed) {
    return files.file(packed);
  }

  @Override
  void put(RowKey key, DataFile file, long position) {
    long packed = files.pack(file, position);
    if (garbage > compactAfterBytes && garbage > arenaSize / 2) {
      rehash(slots.length); // reclaim the arena space of removed keys
    }
    byte[] k = encode(key);
    int hash = mix(Arrays.hashCode(k));
    int slot = find(k, hash);
    if (slot >= 0) {
      locations[slot] = packed;
      return;
    }
    if ((used + 1) * 4L > slots.length * 3L) {
      rehash(size + 1 > slots.length * 3 / 8 ? slots.length * 2 : slots.length);
    }
    int mask = slots.length - 1;
    int i = hash & mask;
    while (slots[i] > 0) {
      i = (i + 1) & mask;
    }
    if (slots[i] == EMPTY) {
      used++;
    }
    slots[i] = append(k) + 1;
    hashes[i] = hash;
    locations[i] = packed;
    size++;
  }

  @Override
  void remove(RowKey key) {
    byte[] k = encode(key);
    int slot = find(k, mix(Arrays.hashCode(k)));
    if (slot >= 0) {
      drop(slot);
    }
  }

  @Override
  void removeFiles(Predicate<String> path) {
    boolean[] gone = files.matching(path);
    if (gone == null) {
      return;
    }
    for (int i = 0; i < slots.length; i++) {
      if (slots[i] > 0 && PackedFiles.in(locations[i], gone)) {
        drop(i);
      }
    }
  }

  @Override
  int size() {
    return size;
  }

  @Override
  void forEach(BiConsumer<RowKey, PrimaryKeyIndex.Location> action) {
    for (int i = 0; i < slots.length; i++) {
      if (slots[i] > 0) {
        action.accept(decode(slots[i] - 1), location(locations[i]));
      }
    }
  }

  /** Bytes held: the table's arrays and the arena (what a key costs, for benchmarks). */
  @Override
  long footprintBytes() {
    return slots.length * (4L + 4L + 8L) + arena.length;
  }

  @Override
  PackedFiles packedFiles() {
    return files;
  }

  private void drop(int slot) {
    int offset = slots[slot] - 1;
    garbage += 4 + readInt(offset);
    slots[slot] = REMOVED;
    size--;
  }

  private int find(byte[] key, int hash) {
    int mask = slots.length - 1;
    for (int i = hash & mask; slots[i] != EMPTY; i = (i + 1) & mask) {
      if (slots[i] > 0 && hashes[i] == hash && equalsAt(slots[i] - 1, key)) {
        return i;
      }
    }
    return -1;
  }

  /** Rebuilds the table at a capacity, and the arena without the keys removed since the last rebuild. */
  private void rehash(int capacity) {
    int[] oldSlots = slots;
    int[] oldHashes = hashes;
    long[] oldLocations = locations;
    byte[] oldArena = arena;
    slots = new int[capacity];
    hashes = new int[capacity];
    locations = new long[capacity];
    arena = new byte[Math.max(1 << 14, (arenaSize - garbage) + (arenaSize - garbage) / 4)];
    arenaSize = 0;
    garbage = 0;
    used = 0;
    int mask = capacity - 1;
    for (int s = 0; s < oldSlots.length; s++) {
      if (oldSlots[s] > 0) {
        int offset = oldSlots[s] - 1;
        int length = 4 + readInt(oldArena, offset);
        ensureArena(length);
        System.arraycopy(oldArena, offset, arena, arenaSize, length);
        int i = oldHashes[s] & mask;
        while (slots[i] != EMPTY) {
          i = (i + 1) & mask;
        }
        slots[i] = arenaSize + 1;
        hashes[i] = oldHashes[s];
        locations[i] = oldLocations[s];
        arenaSize += length;
        used++;
      }
    }
  }

  private int append(byte[] key) {
    ensureArena(4 + key.length);
    int offset = arenaSize;
    ByteBuffer.wrap(arena, offset, 4).putInt(key.length);
    System.arraycopy(key, 0, arena, offset + 4, key.length);
    arenaSize += 4 + key.length;
    if (arenaSize < 0) {
      throw new IllegalStateException("primary-key index arena exceeds 2 GiB");
    }
    return offset;
  }

  private void ensureArena(int more) {
    if (arenaSize + more > arena.length) {
      arena = Arrays.copyOf(arena, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(arena.length * 3L / 2, arenaSize + (long) more)));
    }
  }

  private boolean equalsAt(int offset, byte[] key) {
    return readInt(offset) == key.length && Arrays.equals(arena, offset + 4, offset + 4 + key.length, key, 0, key.length);
  }

  private int readInt(int offset) {
    return readInt(arena, offset);
  }

  private static int readInt(byte[] a, int offset) {
    return ((a[offset] & 0xff) << 24) | ((a[offset + 1] & 0xff) << 16) | ((a[offset + 2] & 0xff) << 8) | (a[offset + 3] & 0xff);
  }

  private PrimaryKeyIndex.Location location(long packed) {
    return files.unpack(packed);
  }

  /** One column: Iceberg's single-value bytes; several: each as a 4-byte length (-1 for null) and its bytes. */
  private byte[] encode(RowKey key) {
    if (types.length == 1) {
      return bytes(Conversions.toByteBuffer(types[0], key.get(0)));
    }
    ByteBuffer[] parts = new ByteBuffer[types.length];
    int length = 0;
    for (int c = 0; c < types.length; c++) {
      Object v = key.get(c);
      parts[c] = v == null ? null : Conversions.toByteBuffer(types[c], v);
      length += 4 + (parts[c] == null ? 0 : parts[c].remaining());
    }
    ByteBuffer out = ByteBuffer.allocate(length);
    for (ByteBuffer p : parts) {
      out.putInt(p == null ? -1 : p.remaining());
      if (p != null) {
        out.put(p.duplicate());
      }
    }
    return out.array();
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private RowKey decode(int offset) {
    int length = readInt(offset);
    ByteBuffer in = ByteBuffer.wrap(arena, offset + 4, length);
    Object[] values = new Object[types.length];
    for (int c = 0; c < types.length; c++) {
      int n = types.length == 1 ? length : in.getInt();
      if (n >= 0) {
        values[c] = value(types[c], in.slice(in.position(), n));
        in.position(in.position() + n);
      }
    }
    return new RowKey(values);
  }

  private static Object value(Type type, ByteBuffer bytes) {
    Object v = Conversions.fromByteBuffer(type, bytes.order(java.nio.ByteOrder.LITTLE_ENDIAN));
    return v instanceof CharSequence cs ? cs.toString() : v;
  }

  private static int mix(int h) {
    return h ^ (h >>> 16) * 0x45d9f3b;
  }
}
