package dev.floe.worker.apply;

import dev.floe.worker.decode.PackedChange;

import dev.floe.worker.fold.RowKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import com.carrotsearch.hppc.sorting.IndirectSort;

/**
 * Where each key's live row is: key → (data file, row position), as of one snapshot, and beside it
 * the stored values merge rules combine with ({@link MergeState}). Built from the key and
 * merge-state columns only, kept current with this worker's own commits; any other writer's commit
 * makes it stale and it is caught up or rebuilt, never trusted.
 */
public final class PrimaryKeyIndex {
  /** A live row's place. */
  public record Location(DataFile file, long position) {}

  private final KeyLocations locations;
  private final MergeState state;
  private long snapshotId;

  private PrimaryKeyIndex(KeyLocations locations, MergeState state, long snapshotId) {
    this.locations = locations;
    this.state = state;
    this.snapshotId = snapshotId;
  }

  public static PrimaryKeyIndex build(Table table, long snapshotId, TableLayout layout) {
    PrimaryKeyIndex index = empty(layout, snapshotId);
    DeleteCache deletes = DeleteCache.ofHeap(); // a delete file applies to many data files: loaded once
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (FileScanTask task : tasks) {
        index.index(table, task, layout, deletes);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return index;
  }

  /** Whether this index holds the merge state the layout's rules need (another schema or other rules: rebuild). */
  public boolean fits(TableLayout layout) {
    return state.describe().equals(MergeState.forLayout(layout).describe());
  }

  /**
   * Brings the index forward to a later snapshot whatever wrote it (other workers, compaction): files
   * that are gone lose their entries; files added since, and files that deletes added since apply
   * to, are indexed again from their key columns. Returns false when {@code toSnapshot} does not
   * descend from the index's snapshot (then the index must be rebuilt).
   */
  public boolean catchUp(Table table, long toSnapshot, TableLayout layout) {
    List<Snapshot> range = new ArrayList<>();
    Snapshot s = table.snapshot(toSnapshot);
    while (s != null && s.snapshotId() != snapshotId) {
      range.add(s);
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    if (s == null) {
      return false;
    }
    Set<String> addedData = new HashSet<>();
    Set<String> addedDeletes = new HashSet<>();
    for (Snapshot r : range) {
      // read with the table's specs: Snapshot.addedDeleteFiles(io) reads each delete manifest's spec
      // from its metadata, deprecated in Iceberg 1.11 and logged as a warning per manifest
      SnapshotChanges changes = SnapshotChanges.builderFor(table).snapshot(r).build();
      changes.addedDataFiles().forEach(f -> addedData.add(f.location()));
      changes.addedDeleteFiles().forEach(f -> addedDeletes.add(f.location()));
    }
    Map<String, FileScanTask> live = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(toSnapshot).planFiles()) {
      tasks.forEach(t -> live.put(t.file().location(), t));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<String> reindex = new HashSet<>();
    live.forEach((path, task) -> {
      if (addedData.contains(path) || task.deletes().stream().anyMatch(d -> addedDeletes.contains(d.location()))) {
        reindex.add(path);
      }
    });
    Predicate<String> gone = path -> !live.containsKey(path) || reindex.contains(path);
    locations.removeFiles(gone);
    state.removeFiles(gone);
    DeleteCache deletes = DeleteCache.ofHeap();
    reindex.forEach(path -> index(table, live.get(path), layout, deletes));
    snapshotId = toSnapshot;
    return true;
  }

  /** Visits every entry, for persisting. */
  void forEach(java.util.function.BiConsumer<RowKey, Location> action) {
    locations.forEach(action);
  }

  /** See {@link KeyLocations#forEachRaw}. */
  boolean forEachRaw(KeyLocations.RawEntry action) {
    return locations.forEachRaw(action);
  }

  /** An index of no rows, for a table that had none: {@link #committed} brings it to the table's first snapshot. */
  public static PrimaryKeyIndex empty(TableLayout layout) {
    return empty(layout, -1);
  }

  /** An empty index of the layout's key shape, to fill when loading a persisted copy. */
  static PrimaryKeyIndex empty(TableLayout layout, long snapshotId) {
    return new PrimaryKeyIndex(KeyLocations.forKey(layout), MergeState.forLayout(layout), snapshotId);
  }

  /** The merge state, for persisting and loading. */
  MergeState mergeState() {
    return state;
  }

  /** Bytes held for the keys and locations, and for the merge state (rough, for benchmarks). */
  public long[] footprintBytes() {
    return new long[] {locations.footprintBytes(), state.footprintBytes()};
  }

  void put(RowKey key, DataFile file, long position) {
    locations.put(key, file, position);
  }

  /** The store of the index's keys, for loading straight into it ({@link KeyLocations#putRawAt}). */
  KeyLocations locations() {
    return locations;
  }

  public long snapshotId() {
    return snapshotId;
  }

  public Location get(RowKey key) {
    return locations.get(key);
  }

  /** The key's location packed in one long (file id, then position: they sort in file and position order), or -1. */
  long packed(RowKey key) {
    return locations.packed(key);
  }

  /** As {@link #packed} for a key of one integer or uuid column given as a packed change holds it ({@link PackedChange#key()}, {@link PackedChange#keyLow()}). */
  long packedOfKey(long key, long keyLow, EventPacker packer) {
    if (locations instanceof KeyLocations.PrimitiveKeys p) {
      return p.packedOf(key);
    }
    if (locations instanceof UuidKeys u) {
      return u.packedOf(key, keyLow);
    }
    return locations.packed(new RowKey(new Object[] {packer.keyObject(key, keyLow)}));
  }

  /** As {@link #packed} for the key of a row in table column order (see {@link KeyLocations#packedOfRow}). */
  long packedOfRow(TableLayout layout, Object[] row) {
    return locations.packedOfRow(layout, row);
  }

  /** The data file of a {@link #packed} location. */
  DataFile file(long packed) {
    return locations.file(packed);
  }

  /** The row position of a {@link #packed} location. */
  static long position(long packed) {
    return KeyLocations.PackedFiles.position(packed);
  }

  public int size() {
    return locations.size();
  }

  /**
   * Brings the index to a snapshot this worker committed: keys it deleted go, rows it added come.
   * The added files are read directly, key columns only, without planning the snapshot: no delete
   * applies to a file in the commit that adds it, so a row's position is its place in the file.
   */
  public void committed(Table table, long newSnapshotId, Collection<RowKey> deleted, List<DataFile> added,
      Map<String, List<Object[]>> rowsOfFiles, TableLayout layout) {
    Schema projection = layout.schema().select(indexedColumns(layout));
    List<DataFile> asWritten = new ArrayList<>();
    List<DataFile> readBack = new ArrayList<>();
    for (DataFile file : added) {
      List<Object[]> written = rowsOfFiles.get(file.location());
      (written != null && written.size() == file.recordCount() ? asWritten : readBack).add(file);
    }
    // The rows as the writer wrote them, in position order: no need to read their files back. The
    // merge state takes their values on another core while the locations take their keys: the two
    // share nothing, and each is a walk over every row of the batch (a tenth of a contest batch).
    Runnable putKeys = () -> {
      for (DataFile file : asWritten) {
        List<Object[]> written = rowsOfFiles.get(file.location());
        if (written instanceof PackedResolver.PackedRows packed
            && (locations instanceof KeyLocations.PrimitiveKeys || locations instanceof UuidKeys)) {
          for (int position = 0; position < written.size(); position++) {
            locations.putRaw(packed.keyAt(position), packed.keyLowAt(position), file, position); // the key alone, without making the row again
          }
          continue;
        }
        for (int position = 0; position < written.size(); position++) {
          locations.putRow(layout, written.get(position), file, position);
        }
      }
    };
    if (state.columns().length == 0 || asWritten.isEmpty()) {
      putKeys.run();
    } else {
      TwoCores.both(putKeys, () -> recordValues(asWritten, rowsOfFiles));
    }
    for (DataFile file : readBack) {
      try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(file.location(), file.fileSizeInBytes()))
          .project(projection)
          .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(projection, fileSchema))
          .build()) {
        long position = 0;
        for (Record r : rows) {
          locations.put(layout.keyOf(r), file, position);
          state.record(file.location(), file.recordCount(), position, r);
          position++;
        }
        state.sealFile(file.location());
        if (position != file.recordCount()) {
          throw new IllegalStateException("read " + position + " rows of " + file.location() + ", which holds " + file.recordCount());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    // After the puts: a key written again was moved in place above (removing it first would have
    // left its old entry as garbage, and the index rehashing every few batches), so only keys that
    // still point at a stored row are gone.
    Set<String> addedPaths = new HashSet<>();
    added.forEach(f -> addedPaths.add(f.location()));
    for (RowKey k : deleted) {
      long packed = locations.packed(k);
      if (packed >= 0 && !addedPaths.contains(locations.file(packed).location())) {
        locations.remove(k);
      }
    }
    snapshotId = newSnapshotId;
  }

  /**
   * Records the merge state's values of rows as they were written, file by file; of packed rows,
   * only the held columns' values are made, not the whole row again.
   */
  private void recordValues(List<DataFile> files, Map<String, List<Object[]>> rowsOfFiles) {
    for (DataFile file : files) {
      List<Object[]> written = rowsOfFiles.get(file.location());
      for (int position = 0; position < written.size(); position++) {
        if (written instanceof PackedResolver.PackedRows packed) {
          int row = position;
          state.recordRow(file.location(), file.recordCount(), position, column -> packed.valueAt(row, column));
        } else {
          state.recordRow(file.location(), file.recordCount(), position, written.get(position));
        }
      }
      state.sealFile(file.location());
    }
  }

  /** The columns the index reads: the key, and those whose values the merge state holds. */
  private List<String> indexedColumns(TableLayout layout) {
    List<String> names = new ArrayList<>(List.of(layout.keyNames()));
    for (MergeState.Column c : state.columns()) {
      names.add(layout.column(c.position()).name());
    }
    return names;
  }

  /** Indexes a data file's live rows: their keys, and the values of the merge state's columns (one projected read). */
  private void index(Table table, FileScanTask task, TableLayout layout, DeleteCache deletes) {
    Schema projection = TypeUtil.join(layout.schema().select(indexedColumns(layout)), new Schema(MetadataColumns.ROW_POSITION));
    DataFile file = task.file();
    try (CloseableIterable<Record> rows = LiveRows.read(table, task, projection, deletes)) {
      for (Record r : rows) {
        long position = (Long) r.getField(MetadataColumns.ROW_POSITION.name());
        locations.put(layout.keyOf(r), file, position);
        state.record(file.location(), file.recordCount(), position, r);
      }
      state.sealFile(file.location());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Stored rows through the index (the position mode's, and the equality mode's on an
   * unpartitioned table): with {@code fromMergeState} the values the folds need come from the
   * merge state and, where it lacks them, from reads projected to the columns needed; without,
   * every row whose values are needed is read whole (the general path, kept as the reference).
   */
  public ChangeResolver.StoredRows storedRows(Table table, TableLayout layout, boolean fromMergeState) {
    return new ChangeResolver.StoredRows() {
      @Override
      public Map<RowKey, Object[]> read(Set<RowKey> keys, Set<RowKey> needValues) {
        return withKeyRows(layout, keys, rowsAt(table, needValues, layout)); // a map of its own
      }

      @Override
      public Map<RowKey, Object[]> read(Set<RowKey> keys, Map<RowKey, boolean[]> needColumns) {
        if (!fromMergeState) {
          return read(keys, needColumns.keySet());
        }
        Map<RowKey, Object[]> out = storedValues(table, needColumns, layout); // holds every key of needColumns the index holds
        // needColumns is a subset of keys: when they are as many, every key was looked up already
        return keys.size() > needColumns.size() ? withKeyRows(layout, keys, out) : out;
      }

      @Override
      public ChangeResolver.FoundInOrder readInOrder(RowKey[] keys, boolean[][] needs) {
        return fromMergeState ? storedInOrder(table, keys, needs, layout) : null; // the reference reads through maps
      }
    };
  }

  /** Adds a bare key row for every key the index holds that {@code out} lacks: enough to delete it. */
  Map<RowKey, Object[]> withKeyRows(TableLayout layout, Set<RowKey> keys, Map<RowKey, Object[]> out) {
    for (RowKey k : keys) {
      if (!out.containsKey(k) && locations.contains(k)) {
        out.put(k, layout.keyRow(k));
      }
    }
    return out;
  }

  /**
   * The stored rows of keys as far as each needs them ({@code needs}: per key the columns whose
   * stored values its fold combines with, by table position; null for the whole row), in table
   * column order; columns not needed are null. Every key the index holds gets a row. What the merge
   * state holds is taken from it; the rest is read from the keys' data files, projected to the
   * columns needed there, each file once and in position order. No deletes are applied: the index
   * points only at live positions.
   */
  public Map<RowKey, Object[]> storedValues(Table table, Map<RowKey, boolean[]> needs, TableLayout layout) {
    RowKey[] keys = needs.keySet().toArray(new RowKey[0]);
    boolean[][] wants = needs.values().toArray(new boolean[0][]);
    Object[][] rows = storedInOrder(table, keys, wants, layout).rows();
    Map<RowKey, Object[]> out = new HashMap<>(keys.length * 4 / 3 + 1);
    for (int i = 0; i < keys.length; i++) {
      if (rows[i] != null) {
        out.put(keys[i], rows[i]);
      }
    }
    return out;
  }

  /**
   * As {@link #storedValues}, for keys given in an order and answered in it, without a map:
   * {@code rows[i]} for {@code keys[i]} (null when the index does not hold it) and its place in the
   * index ({@link #file}, {@link #position}; -1 when not held), which the position writer deletes
   * by. A key whose need is {@link ChangeResolver#LOCATE_ONLY} gets its bare key row.
   */
  public ChangeResolver.FoundInOrder storedInOrder(Table table, RowKey[] keys, boolean[][] needs, TableLayout layout) {
    Object[][] rows = new Object[keys.length][];
    long[] places = new long[keys.length];
    MergeState.Column[] held = state.columns();
    boolean[] fromState = new boolean[layout.columnCount()];
    for (MergeState.Column c : held) {
      fromState[c.position()] = state.holdsColumn(layout, c.position());
    }
    for (int p : layout.keyPositions()) {
      fromState[p] = true; // the key itself is known
    }
    // Each key located once, then visited in file and position order: the merge state's arrays are
    // walked forward instead of at random (with 10M keys, random reads of them were the largest cost of a batch).
    locate(keys, places);
    int[] ids = new int[keys.length];
    int found = 0;
    for (int i = 0; i < keys.length; i++) {
      if (places[i] < 0) {
        continue;
      }
      if (needs[i] == ChangeResolver.LOCATE_ONLY) {
        // located is all it needs (a batch of `last` rules: every key): nothing stored to visit in
        // order, so it stays out of the sort, which was a third of resolving such a batch
        rows[i] = layout.keyRow(keys[i]);
      } else {
        ids[found++] = i;
      }
    }
    long[] placeOf = new long[found]; // compared side by side, not through ids at random
    for (int k = 0; k < found; k++) {
      placeOf[k] = places[ids[k]];
    }
    int[] order = IndirectSort.mergesort(0, found, (a, b) -> Long.compare(placeOf[a], placeOf[b]));
    Map<String, Map<Long, Integer>> wanted = new HashMap<>();
    Map<String, DataFile> files = new HashMap<>();
    Map<String, boolean[]> columnsByFile = new HashMap<>();
    DataFile file = null;
    MergeState.FileValues values = null;
    boolean stateHasFile = false;
    boolean[] lastNeed = null; // keys share a few arrays of needed columns (see ChangeResolver): decided once per run of one
    boolean lastCovered = false;
    for (int o : order) {
      int i = ids[o];
      boolean[] need = needs[i];
      DataFile f = locations.file(places[i]);
      if (f != file) {
        file = f;
        values = state.file(f.location());
        stateHasFile = state.hasFile(f.location());
      }
      long position = KeyLocations.PackedFiles.position(places[i]);
      if (need != null && need != lastNeed) {
        lastNeed = need;
        lastCovered = covered(need, fromState);
      }
      if (need != null && stateHasFile && lastCovered) {
        Object[] row = layout.keyRow(keys[i]);
        for (int c = 0; c < held.length; c++) {
          if (fromState[held[c].position()]) {
            row[held[c].position()] = values == null ? null : values.value(position, c);
          }
        }
        rows[i] = row;
        continue;
      }
      String path = f.location();
      files.put(path, f);
      wanted.computeIfAbsent(path, p -> new HashMap<>()).put(position, i);
      boolean[] cols = columnsByFile.computeIfAbsent(path, p -> new boolean[layout.columnCount()]);
      for (int c = 0; c < cols.length; c++) {
        cols[c] |= need == null || need[c];
      }
    }
    for (Map.Entry<String, Map<Long, Integer>> e : wanted.entrySet()) {
      readPositions(table, files.get(e.getKey()), e.getValue(), columnsByFile.get(e.getKey()), layout, keys, rows);
    }
    return new ChangeResolver.FoundInOrder(rows, places);
  }

  /**
   * The merge state's values of some columns at some stored places, visited in file and position
   * order: {@code out[j][k]} is the value of column {@code positions[j]} (a table position) at
   * {@code places[k]} ({@link #packed}). False when the state does not hold one of those columns,
   * or the values of one of those files: the caller then takes the general path.
   */
  boolean heldValues(TableLayout layout, int[] positions, long[] places, int count, Object[][] out) {
    MergeState.Column[] held = state.columns();
    int[] column = new int[positions.length];
    for (int j = 0; j < positions.length; j++) {
      column[j] = -1;
      for (int c = 0; c < held.length; c++) {
        if (held[c].position() == positions[j]) {
          column[j] = c;
        }
      }
      if (column[j] < 0 || !state.holdsColumn(layout, positions[j])) {
        return false;
      }
    }
    int[] order = IndirectSort.mergesort(0, count, (a, b) -> Long.compare(places[a], places[b]));
    DataFile file = null;
    MergeState.FileValues values = null;
    for (int k : order) {
      DataFile f = locations.file(places[k]);
      if (f != file) {
        file = f;
        if (!state.hasFile(f.location())) {
          return false;
        }
        values = state.file(f.location());
      }
      long position = KeyLocations.PackedFiles.position(places[k]);
      for (int j = 0; j < column.length; j++) {
        out[j][k] = values == null ? null : values.value(position, column[j]);
      }
    }
    return true;
  }

  /**
   * Each key's place ({@link #packed}), on two cores for many keys: a lookup is a wait for memory
   * (the table is far larger than a cache), and the index is only read meanwhile.
   */
  private void locate(RowKey[] keys, long[] places) {
    TwoCores.forRange(keys.length, (from, to) -> {
      for (int i = from; i < to; i++) {
        places[i] = locations.packed(keys[i]);
      }
    });
  }

  private static boolean covered(boolean[] need, boolean[] known) {
    for (int i = 0; i < need.length; i++) {
      if (need[i] && !known[i]) {
        return false;
      }
    }
    return true;
  }

  /** Reads the rows at some positions of one data file, only the given columns (and the key). */
  private static void readPositions(Table table, DataFile file, Map<Long, Integer> positions, boolean[] columns,
      TableLayout layout, RowKey[] keys, Object[][] into) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < columns.length; i++) {
      if (columns[i]) {
        names.add(layout.column(i).name());
      }
    }
    for (String k : layout.keyNames()) {
      if (!names.contains(k)) {
        names.add(k);
      }
    }
    Schema projection = TypeUtil.join(layout.schema().select(names), new Schema(MetadataColumns.ROW_POSITION));
    long last = positions.keySet().stream().mapToLong(Long::longValue).max().orElse(-1);
    int found = 0;
    try (CloseableIterable<Record> rows = LiveRows.readAll(table, file, projection)) {
      for (Record r : rows) {
        long position = (Long) r.getField(MetadataColumns.ROW_POSITION.name());
        Integer i = positions.get(position);
        if (i != null) {
          into[i] = layout.valuesOf(r);
          found++;
        }
        if (position >= last || found == positions.size()) {
          break; // rows come in position order: nothing wanted is left in the file
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (found < positions.size()) {
      for (int i : positions.values()) {
        if (into[i] == null) {
          into[i] = layout.keyRow(keys[i]); // held by the index: at least its key, to delete it
        }
      }
    }
  }

  /** Reads the rows at given positions of their files, all columns, in table column order: the reference for {@link #storedValues}. */
  public Map<RowKey, Object[]> rowsAt(Table table, Collection<RowKey> keys, TableLayout layout) {
    Map<String, List<RowKey>> byFile = new HashMap<>();
    Map<String, DataFile> files = new HashMap<>();
    for (RowKey k : keys) {
      Location l = locations.get(k);
      if (l != null) {
        byFile.computeIfAbsent(l.file().location(), f -> new ArrayList<>()).add(k);
        files.put(l.file().location(), l.file());
      }
    }
    Map<RowKey, Object[]> out = new HashMap<>();
    if (byFile.isEmpty()) {
      return out;
    }
    Schema projection = TypeUtil.join(layout.schema(), new Schema(MetadataColumns.ROW_POSITION));
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (FileScanTask task : tasks) {
        List<RowKey> wanted = byFile.get(task.file().location());
        if (wanted == null) {
          continue;
        }
        Map<Long, RowKey> byPosition = new HashMap<>();
        wanted.forEach(k -> byPosition.put(locations.get(k).position(), k));
        try (CloseableIterable<Record> rows = LiveRows.read(table, task, projection)) {
          for (Record r : rows) {
            RowKey k = byPosition.get((Long) r.getField(MetadataColumns.ROW_POSITION.name()));
            if (k != null) {
              out.put(k, layout.valuesOf(r));
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
