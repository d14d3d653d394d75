package dev.floe.worker.apply;

import com.carrotsearch.hppc.LongLongHashMap;
import dev.floe.worker.fold.RowKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.apache.iceberg.DataFile;

/**
 * The storage of a primary-key index: key → (data file, position). A single {@code long} (or
 * {@code int}) key is stored unboxed, file and position packed into one {@code long}, a single UUID
 * key as its two longs ({@link UuidKeys}); string, decimal and composite keys encoded into one byte
 * arena ({@link EncodedKeys}); any other key in a hash map of {@link RowKey}s.
 */
abstract class KeyLocations {
  /** The key's location packed as {@link PackedFiles} packs it (file id, position), or -1 when the key is not held. */
  abstract long packed(RowKey key);

  /** The data file of a packed location. */
  abstract DataFile file(long packed);

  PrimaryKeyIndex.Location get(RowKey key) {
    long packed = packed(key);
    return packed < 0 ? null : new PrimaryKeyIndex.Location(file(packed), PackedFiles.position(packed));
  }

  /** Whether the key is held: as {@code get(key) != null}, without making the location. */
  boolean contains(RowKey key) {
    return packed(key) >= 0;
  }

  abstract void put(RowKey key, DataFile file, long position);

  /**
   * As {@link #put} for the key of a row in table column order whose values are the table's types
   * (as written): a store of one unboxed key reads it from the row and makes no {@link RowKey},
   * where a commit made one per written row only to take it apart again.
   */
  void putRow(TableLayout layout, Object[] row, DataFile file, long position) {
    put(layout.keyOfStoredRow(row), file, position);
  }

  /** As {@link #packed} for the key of a row in table column order, read from the row as {@link #putRow} reads it. */
  long packedOfRow(TableLayout layout, Object[] row) {
    return packed(layout.keyOfRow(row));
  }

  abstract void remove(RowKey key);

  /** Drops every entry whose data file matches. */
  abstract void removeFiles(Predicate<String> path);

  abstract int size();

  abstract void forEach(BiConsumer<RowKey, PrimaryKeyIndex.Location> action);

  /** An entry of an unboxed store: the key's one or two longs (the second 0 for one), its file and position. */
  interface RawEntry {
    void accept(long k0, long k1, DataFile file, long position);
  }

  /**
   * Visits every entry as its longs, making no object per entry, and returns true; a store that
   * does not hold its keys as longs visits nothing and returns false (use {@link #forEach}).
   */
  boolean forEachRaw(RawEntry action) {
    return false;
  }

  /** As {@link #put} for a key given as its longs ({@link #forEachRaw}'s entries), in a store that holds keys so. */
  final void putRaw(long k0, long k1, DataFile file, long position) {
    putRawPacked(k0, k1, packedFiles().pack(file, position));
  }

  /**
   * As {@link #putRaw} for a file given by its id in {@link #expectFiles}'s list: a persisted index
   * loads its keys while the files they point into are still being read from the manifests.
   */
  final void putRawAt(long k0, long k1, int fileId, long position) {
    putRawPacked(k0, k1, PackedFiles.packAt(fileId, position));
  }

  /** Puts a key given as its longs at a packed location; only a store that holds keys so has one. */
  void putRawPacked(long k0, long k1, long packed) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not hold its keys as longs");
  }

  /**
   * Loading a persisted index into an empty store: its files by location, ids in list order, known
   * before the files themselves; {@link #bindFiles} supplies them before the store is used.
   */
  final void expectFiles(java.util.List<String> locations) {
    packedFiles().expect(locations);
  }

  /** The files {@link #expectFiles} named, each by its location; one that {@code live} lacks is an error. */
  final void bindFiles(java.util.function.Function<String, DataFile> live) {
    packedFiles().bind(live);
  }

  /** The files this store's locations point into. */
  abstract PackedFiles packedFiles();

  /** Makes room for {@code n} more keys at once (loading a persisted index: no rebuild on the way); a hint. */
  void ensureCapacity(int n) {}

  /** Bytes held, roughly (for benchmarks). */
  abstract long footprintBytes();

  static KeyLocations forKey(TableLayout layout) {
    if (layout.keyNames().length == 1) {
      switch (layout.schema().findType(layout.keyNames()[0]).typeId()) {
        case LONG -> {
          return new PrimitiveKeys(false);
        }
        case INTEGER -> {
          return new PrimitiveKeys(true);
        }
        case UUID -> {
          return new UuidKeys();
        }
        default -> {}
      }
    }
    org.apache.iceberg.types.Type[] types = new org.apache.iceberg.types.Type[layout.keyNames().length];
    for (int i = 0; i < types.length; i++) {
      types[i] = layout.schema().findType(layout.keyNames()[i]);
      if (!EncodedKeys.encodes(types[i])) {
        return new GenericKeys();
      }
    }
    return new EncodedKeys(types);
  }

  /** Any key: a hash map of row keys to packed locations. */
  static final class GenericKeys extends KeyLocations {
    private final Map<RowKey, Long> map = new HashMap<>();
    private final PackedFiles files = new PackedFiles();

    @Override
    long packed(RowKey key) {
      Long packed = map.get(key);
      return packed == null ? -1 : packed;
    }

    @Override
    DataFile file(long packed) {
      return files.file(packed);
    }

    @Override
    void put(RowKey key, DataFile file, long position) {
      map.put(key, files.pack(file, position));
    }

    @Override
    void remove(RowKey key) {
      map.remove(key);
    }

    @Override
    void removeFiles(Predicate<String> path) {
      boolean[] gone = files.matching(path);
      if (gone != null) {
        map.values().removeIf(packed -> PackedFiles.in(packed, gone));
      }
    }

    @Override
    int size() {
      return map.size();
    }

    @Override
    void forEach(BiConsumer<RowKey, PrimaryKeyIndex.Location> action) {
      map.forEach((key, packed) -> action.accept(key, files.unpack(packed)));
    }

    @Override
    long footprintBytes() {
      return map.size() * 130L; // entry, boxed key, boxed location: an estimate
    }

    @Override
    PackedFiles packedFiles() {
      return files;
    }
  }

  /**
   * The data files an index points into, each under a small id, and a location packed as file id
   * and row position in one {@code long}: shared by the unboxed key stores.
   */
  static final class PackedFiles {
    private static final int POSITION_BITS = 40; // a trillion rows per file; 2^23 files
    private static final long POSITION_MASK = (1L << POSITION_BITS) - 1;
    private final List<DataFile> files = new ArrayList<>();
    private final Map<String, Integer> ids = new HashMap<>();

    /** The file packed last and its id, as one reference: a commit or a load packs a file's rows one after another. */
    private record Last(DataFile file, long id) {}

    private Last last = new Last(null, 0);

    long pack(DataFile file, long position) {
      Last l = last;
      if (file != l.file()) {
        Integer id = ids.get(file.location()); // no capturing lambda per call: a load packs every key of the table
        if (id == null) {
          id = files.size();
          files.add(file);
          ids.put(file.location(), id);
        }
        l = new Last(file, id);
        last = l;
      }
      return (l.id() << POSITION_BITS) | position;
    }

    /** A location packed from a file id and a position. */
    static long packAt(int fileId, long position) {
      return ((long) fileId << POSITION_BITS) | position;
    }

    /** Registers files by location before their {@link DataFile}s, ids in list order ({@link KeyLocations#expectFiles}). */
    void expect(List<String> locations) {
      if (!files.isEmpty()) {
        throw new IllegalStateException("files are expected only by an empty store");
      }
      for (String location : locations) {
        if (ids.put(location, files.size()) != null) {
          throw new IllegalStateException("a file listed twice: " + location);
        }
        files.add(null);
      }
    }

    /** Supplies every expected file: {@code live} maps a location to its file, or null when it is not live. */
    void bind(java.util.function.Function<String, DataFile> live) {
      ids.forEach((location, id) -> {
        if (files.get(id) == null) {
          DataFile f = live.apply(location);
          if (f == null) {
            throw new IllegalStateException("the index names a file that is not live: " + location);
          }
          files.set(id, f);
        }
      });
    }

    PrimaryKeyIndex.Location unpack(long packed) {
      return new PrimaryKeyIndex.Location(file(packed), position(packed));
    }

    DataFile file(long packed) {
      return files.get((int) (packed >>> POSITION_BITS));
    }

    static long position(long packed) {
      return packed & POSITION_MASK;
    }

    /** Which file ids match, or null when none does. */
    boolean[] matching(Predicate<String> path) {
      boolean[] match = new boolean[files.size()];
      boolean any = false;
      for (int i = 0; i < match.length; i++) {
        match[i] = path.test(files.get(i).location());
        any |= match[i];
      }
      return any ? match : null;
    }

    static boolean in(long packed, boolean[] fileIds) {
      return fileIds[(int) (packed >>> POSITION_BITS)];
    }
  }

  /** One long or int key column: unboxed keys, file and position packed in one long. */
  static final class PrimitiveKeys extends KeyLocations {
    private final boolean intKey;
    private final LongLongHashMap map = new LongLongHashMap();
    private final PackedFiles files = new PackedFiles();

    PrimitiveKeys(boolean intKey) {
      this.intKey = intKey;
    }

    @Override
    long packed(RowKey key) {
      return packedOf(raw(key));
    }

    /** As {@link #packed(RowKey)} for the key's value itself (an int key widened). */
    long packedOf(long key) {
      int slot = map.indexOf(key); // one probe, not containsKey and get
      return map.indexExists(slot) ? map.indexGet(slot) : -1;
    }

    @Override
    DataFile file(long packed) {
      return files.file(packed);
    }

    @Override
    void put(RowKey key, DataFile file, long position) {
      put(raw(key), file, position);
    }

    @Override
    void putRow(TableLayout layout, Object[] row, DataFile file, long position) {
      put(((Number) row[layout.keyPosition(0)]).longValue(), file, position);
    }

    @Override
    long packedOfRow(TableLayout layout, Object[] row) {
      return packedOf(((Number) row[layout.keyPosition(0)]).longValue());
    }

    /** As {@link #put(RowKey, DataFile, long)} for the key's value itself (an int key widened). */
    void put(long key, DataFile file, long position) {
      map.put(key, files.pack(file, position));
    }

    @Override
    void putRawPacked(long k0, long unused, long packed) {
      map.put(k0, packed);
    }

    @Override
    PackedFiles packedFiles() {
      return files;
    }

    @Override
    void ensureCapacity(int n) {
      map.ensureCapacity(map.size() + n);
    }

    @Override
    void remove(RowKey key) {
      map.remove(raw(key));
    }

    @Override
    void removeFiles(Predicate<String> path) {
      boolean[] drop = files.matching(path);
      if (drop != null) {
        map.removeAll((k, v) -> PackedFiles.in(v, drop));
      }
    }

    @Override
    int size() {
      return map.size();
    }

    @Override
    void forEach(BiConsumer<RowKey, PrimaryKeyIndex.Location> action) {
      forEachRaw((k, unused, file, position) ->
          action.accept(new RowKey(new Object[] {intKey ? (Object) (int) k : (Object) k}), new PrimaryKeyIndex.Location(file, position)));
    }

    /**
     * In slot order, the same on every call (the map's own iterator starts at a random slot each
     * time): the persisted index's fast path is compared to its general one byte for byte.
     */
    @Override
    boolean forEachRaw(RawEntry action) {
      long[] keys = map.keys;
      long[] values = map.values;
      int zeroSlot = keys.length - 1; // the map keeps the key 0 apart, in the last slot
      for (int slot = 0; slot < zeroSlot; slot++) {
        if (keys[slot] != 0) {
          action.accept(keys[slot], 0, files.file(values[slot]), PackedFiles.position(values[slot]));
        }
      }
      if (map.containsKey(0)) {
        long packed = map.get(0);
        action.accept(0, 0, files.file(packed), PackedFiles.position(packed));
      }
      return true;
    }

    @Override
    long footprintBytes() {
      return map.keys.length * 16L;
    }

    private long raw(RowKey key) {
      return ((Number) key.get(0)).longValue();
    }
  }
}
