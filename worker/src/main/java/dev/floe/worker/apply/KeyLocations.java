package dev.floe.worker.apply;

import com.carrotsearch.hppc.LongLongHashMap;
import com.carrotsearch.hppc.cursors.LongLongCursor;
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
 * {@code int}) key is stored unboxed, file and position packed into one {@code long}; string, UUID,
 * decimal and composite keys encoded into one byte arena ({@link EncodedKeys}); any other key in a
 * hash map of {@link RowKey}s.
 */
abstract class KeyLocations {
  abstract PrimaryKeyIndex.Location get(RowKey key);

  abstract void put(RowKey key, DataFile file, long position);

  abstract void remove(RowKey key);

  /** Drops every entry whose data file matches. */
  abstract void removeFiles(Predicate<String> path);

  abstract int size();

  abstract void forEach(BiConsumer<RowKey, PrimaryKeyIndex.Location> action);

  static KeyLocations forKey(TableLayout layout) {
    if (layout.keyNames().length == 1) {
      switch (layout.schema().findType(layout.keyNames()[0]).typeId()) {
        case LONG -> {
          return new PrimitiveKeys(false);
        }
        case INTEGER -> {
          return new PrimitiveKeys(true);
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

  /** Any key: a hash map of row keys. */
  static final class GenericKeys extends KeyLocations {
    private final Map<RowKey, PrimaryKeyIndex.Location> map = new HashMap<>();

    @Override
    PrimaryKeyIndex.Location get(RowKey key) {
      return map.get(key);
    }

    @Override
    void put(RowKey key, DataFile file, long position) {
      map.put(key, new PrimaryKeyIndex.Location(file, position));
    }

    @Override
    void remove(RowKey key) {
      map.remove(key);
    }

    @Override
    void removeFiles(Predicate<String> path) {
      map.values().removeIf(l -> path.test(l.file().location()));
    }

    @Override
    int size() {
      return map.size();
    }

    @Override
    void forEach(BiConsumer<RowKey, PrimaryKeyIndex.Location> action) {
      map.forEach(action);
    }
  }

  /** One long or int key column: unboxed keys, file id and position packed in one long. */
  static final class PrimitiveKeys extends KeyLocations {
    private static final int POSITION_BITS = 40; // a trillion rows per file; 2^23 files
    private final boolean intKey;
    private final LongLongHashMap map = new LongLongHashMap();
    private final List<DataFile> files = new ArrayList<>();
    private final Map<String, Integer> fileIds = new HashMap<>();

    PrimitiveKeys(boolean intKey) {
      this.intKey = intKey;
    }

    @Override
    PrimaryKeyIndex.Location get(RowKey key) {
      long k = raw(key);
      if (!map.containsKey(k)) {
        return null;
      }
      long v = map.get(k);
      return new PrimaryKeyIndex.Location(files.get((int) (v >>> POSITION_BITS)), v & ((1L << POSITION_BITS) - 1));
    }

    @Override
    void put(RowKey key, DataFile file, long position) {
      int id = fileIds.computeIfAbsent(file.location(), p -> {
        files.add(file);
        return files.size() - 1;
      });
      map.put(raw(key), ((long) id << POSITION_BITS) | position);
    }

    @Override
    void remove(RowKey key) {
      map.remove(raw(key));
    }

    @Override
    void removeFiles(Predicate<String> path) {
      boolean[] drop = new boolean[files.size()];
      boolean any = false;
      for (int i = 0; i < drop.length; i++) {
        drop[i] = path.test(files.get(i).location());
        any |= drop[i];
      }
      if (any) {
        map.removeAll((k, v) -> drop[(int) (v >>> POSITION_BITS)]);
      }
    }

    @Override
    int size() {
      return map.size();
    }

    @Override
    void forEach(BiConsumer<RowKey, PrimaryKeyIndex.Location> action) {
      for (LongLongCursor c : map) {
        Object key = intKey ? (Object) (int) c.key : (Object) c.key;
        action.accept(new RowKey(new Object[] {key}),
            new PrimaryKeyIndex.Location(files.get((int) (c.value >>> POSITION_BITS)), c.value & ((1L << POSITION_BITS) - 1)));
      }
    }

    private long raw(RowKey key) {
      return ((Number) key.get(0)).longValue();
    }
  }
}
