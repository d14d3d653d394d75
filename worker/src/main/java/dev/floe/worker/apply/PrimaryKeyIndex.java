package dev.floe.worker.apply;

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
import org.apache.iceberg.Snapshot;
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

/**
 * Where each key's live row is: key → (data file, row position), as of one snapshot. Built from the
 * key columns only, kept current with this worker's own commits; any other writer's commit makes it
 * stale and it is rebuilt, never trusted.
 */
public final class PrimaryKeyIndex {
  /** A live row's place. */
  public record Location(DataFile file, long position) {}

  private final KeyLocations locations;
  private long snapshotId;

  private PrimaryKeyIndex(KeyLocations locations, long snapshotId) {
    this.locations = locations;
    this.snapshotId = snapshotId;
  }

  public static PrimaryKeyIndex build(Table table, long snapshotId, TableLayout layout) {
    KeyLocations locations = KeyLocations.forKey(layout);
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (FileScanTask task : tasks) {
        index(table, task, layout, locations);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new PrimaryKeyIndex(locations, snapshotId);
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
      r.addedDataFiles(table.io()).forEach(f -> addedData.add(f.location()));
      r.addedDeleteFiles(table.io()).forEach(f -> addedDeletes.add(f.location()));
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
    locations.removeFiles(path -> !live.containsKey(path) || reindex.contains(path));
    reindex.forEach(path -> index(table, live.get(path), layout, locations));
    snapshotId = toSnapshot;
    return true;
  }

  /** Visits every entry, for persisting. */
  void forEach(java.util.function.BiConsumer<RowKey, Location> action) {
    locations.forEach(action);
  }

  /** An empty index of the layout's key shape, to fill when loading a persisted copy. */
  static PrimaryKeyIndex empty(TableLayout layout, long snapshotId) {
    return new PrimaryKeyIndex(KeyLocations.forKey(layout), snapshotId);
  }

  void put(RowKey key, DataFile file, long position) {
    locations.put(key, file, position);
  }

  public long snapshotId() {
    return snapshotId;
  }

  public Location get(RowKey key) {
    return locations.get(key);
  }

  public int size() {
    return locations.size();
  }

  /**
   * Brings the index to a snapshot this worker committed: keys it deleted go, rows it added come.
   * The added files are read directly, key columns only, without planning the snapshot: no delete
   * applies to a file in the commit that adds it, so a row's position is its place in the file.
   */
  public void committed(Table table, long newSnapshotId, Collection<RowKey> deleted, List<DataFile> added, TableLayout layout) {
    deleted.forEach(locations::remove);
    Schema keys = layout.schema().select(layout.keyNames());
    for (DataFile file : added) {
      try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(file.location(), file.fileSizeInBytes()))
          .project(keys)
          .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(keys, fileSchema))
          .build()) {
        long position = 0;
        for (Record r : rows) {
          locations.put(layout.keyOf(r), file, position++);
        }
        if (position != file.recordCount()) {
          throw new IllegalStateException("read " + position + " rows of " + file.location() + ", which holds " + file.recordCount());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    snapshotId = newSnapshotId;
  }

  private static void index(Table table, FileScanTask task, TableLayout layout, KeyLocations into) {
    Schema keys = TypeUtil.join(layout.schema().select(layout.keyNames()), new Schema(MetadataColumns.ROW_POSITION));
    try (CloseableIterable<Record> rows = LiveRows.read(table, task, keys)) {
      for (Record r : rows) {
        into.put(layout.keyOf(r), task.file(), (Long) r.getField(MetadataColumns.ROW_POSITION.name()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads the rows at given positions of their files, all columns, in table column order. */
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
