package dev.floe.worker.apply;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.DeleteGranularity;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.FanoutPositionOnlyDeleteWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Writes a batch in the position-deletes mode: final rows as data files, and every replaced or
 * deleted stored row as a delete by position found through the primary-key index: position-delete
 * files in format v2, deletion vectors in v3 (merged with the file's previous vector, which the
 * commit replaces).
 */
public final class PositionDeltaWriter {
  private PositionDeltaWriter() {}

  /**
   * @param deletes stored rows (or key rows) to delete; a key may appear more than once (a truncate
   *     adds its own deletes)
   * @param knownPlaces the index places of the first deletes, where resolving them found those
   *     already; the others are looked up
   */
  public static EqualityDeltaWriter.Written write(Table table, TableLayout layout, PrimaryKeyIndex index,
      List<Object[]> rows, List<Object[]> deletes, long[] knownPlaces, long baseSnapshot) {
    // Stored places, packed: sorted, they come in file and position order, and a key deleted twice
    // (a truncate adds its own deletes) is one place twice, side by side.
    long[] places = Arrays.copyOf(knownPlaces, deletes.size());
    int n = knownPlaces.length;
    for (Object[] row : deletes.subList(n, deletes.size())) {
      long packed = index.packedOfRow(layout, row);
      if (packed >= 0) {
        places[n++] = packed;
      }
    }
    Arrays.sort(places, 0, n);
    Targets targets = new Targets(new DataFile[n], new long[n]);
    Set<String> referenced = new HashSet<>();
    DataFile file = null;
    for (int i = 0; i < n; i++) {
      if (i > 0 && places[i] == places[i - 1]) {
        continue;
      }
      DataFile f = index.file(places[i]);
      if (f != file) {
        file = f;
        referenced.add(f.location());
      }
      targets.add(f, PrimaryKeyIndex.position(places[i]));
    }
    // the deletes on another core while this one writes the rows: they do not depend on each other
    CompletableFuture<DeleteWriteResult> writingDeletes = targets.count == 0
        ? CompletableFuture.completedFuture(null)
        : CompletableFuture.supplyAsync(() -> writeDeletes(table, targets, referenced, baseSnapshot), SideThreads.EXECUTOR);
    EqualityDeltaWriter.Rows dataFiles;
    try {
      dataFiles = EqualityDeltaWriter.writeRowsTracked(table, layout, rows);
    } catch (RuntimeException e) {
      try {
        DeleteWriteResult written = writingDeletes.join();
        if (written != null) {
          written.deleteFiles().forEach(f -> table.io().deleteFile(f.location()));
        }
      } catch (RuntimeException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
    DeleteWriteResult result;
    try {
      result = writingDeletes.join();
    } catch (CompletionException e) {
      dataFiles.files().forEach(f -> table.io().deleteFile(f.location()));
      throw TwoCores.withFailureOf(null, e);
    }
    List<DeleteFile> deleteFiles = result == null ? List.of() : List.copyOf(result.deleteFiles());
    List<DeleteFile> replaced = result == null ? List.of() : List.copyOf(result.rewrittenDeleteFiles());
    return new EqualityDeltaWriter.Written(dataFiles, deleteFiles, replaced, referenced);
  }

  /**
   * The stored rows to delete, in file and position order: a file and a position per row side by
   * side in two arrays, not an object per row, since the deletes of a batch are written while the
   * collector may run (hundreds of thousands of rows a batch).
   */
  private static final class Targets {
    private final DataFile[] files;
    private final long[] positions;
    private int count;

    private Targets(DataFile[] files, long[] positions) {
      this.files = files;
      this.positions = positions;
    }

    private void add(DataFile file, long position) {
      files[count] = file;
      positions[count++] = position;
    }
  }

  private static DeleteWriteResult writeDeletes(Table table, Targets targets, Set<String> dataFiles, long baseSnapshot) {
    if (formatVersion(table) >= 3) {
      OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
          .format(FileFormat.PUFFIN).operationId(UUID.randomUUID().toString()).build();
      return writeVectors(table, targets, files, previousVectors(table, baseSnapshot, dataFiles));
    }
    return writePositionDeletes(table, targets);
  }

  private static DeleteWriteResult writeVectors(Table table, Targets targets, OutputFileFactory files,
      Map<String, List<DeleteFile>> previous) {
    BaseDeleteLoader loader = new BaseDeleteLoader(d -> table.io().newInputFile(d.location(), d.fileSizeInBytes()));
    BaseDVFileWriter writer = new BaseDVFileWriter(files, path -> {
      List<DeleteFile> dvs = previous.get(path);
      return dvs == null ? null : loader.loadPositionDeletes(dvs, path);
    });
    try (writer) {
      for (int i = 0; i < targets.count; i++) {
        DataFile f = targets.files[i];
        writer.delete(f.location(), targets.positions[i], table.specs().get(f.specId()), f.partition());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.result();
  }

  private static DeleteWriteResult writePositionDeletes(Table table, Targets targets) {
    GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
        .format(FileFormat.PARQUET).operationId(UUID.randomUUID().toString()).build();
    long targetSize = PropertyUtil.propertyAsLong(table.properties(),
        TableProperties.DELETE_TARGET_FILE_SIZE_BYTES, TableProperties.DELETE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    // One delete file per data file: a reader of a data file opens only the deletes that point into it.
    FanoutPositionOnlyDeleteWriter<Record> writer =
        new FanoutPositionOnlyDeleteWriter<>(factory, files, table.io(), targetSize, DeleteGranularity.FILE);
    try (writer) {
      PositionDelete<Record> delete = PositionDelete.create(); // the writer copies what it keeps of each
      for (int i = 0; i < targets.count; i++) {
        DataFile f = targets.files[i];
        writer.write(delete.set(f.location(), targets.positions[i]), table.specs().get(f.specId()), f.partition());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.result();
  }

  /**
   * The snapshot's live position deletes (deletion vectors, and file-scoped delete files a table
   * upgraded from format 2 may hold) of each of {@code dataFiles}, by the data file they point
   * into. Each of them names its data file, so only the snapshot's delete manifests are read: not
   * its data manifests, nor a scan's matching of every delete to every file, which planning the
   * snapshot per batch cost (0.9 s of a full-size `orders` run). A position delete that names no
   * file (partition-scoped) sends the whole lookup to the scan, {@link #previousVectorsByScan}.
   */
  static Map<String, List<DeleteFile>> previousVectors(Table table, long snapshotId, Set<String> dataFiles) {
    Snapshot snapshot = table.snapshot(snapshotId);
    if (snapshot == null) {
      return previousVectorsByScan(table, snapshotId); // the scan words the missing snapshot
    }
    Map<String, List<DeleteFile>> out = new HashMap<>();
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      if (!manifest.hasAddedFiles() && !manifest.hasExistingFiles()) {
        continue; // only removals: nothing live in it
      }
      try (ManifestReader<DeleteFile> deletes = ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile d : deletes) {
          if (d.content() != FileContent.POSITION_DELETES) {
            continue;
          }
          String target = ContentFileUtil.referencedDataFileLocation(d);
          if (target == null) {
            return previousVectorsByScan(table, snapshotId);
          }
          if (dataFiles.contains(target)) {
            out.computeIfAbsent(target, p -> new ArrayList<>()).add(d);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  /** The live position deletes of every data file of the snapshot, as a scan matches them: the reference for {@link #previousVectors}. */
  static Map<String, List<DeleteFile>> previousVectorsByScan(Table table, long snapshotId) {
    Map<String, List<DeleteFile>> out = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (FileScanTask t : tasks) {
        for (DeleteFile d : t.deletes()) {
          if (d.content() == FileContent.POSITION_DELETES) {
            out.computeIfAbsent(t.file().location(), p -> new ArrayList<>()).add(d);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static int formatVersion(Table table) {
    return ((org.apache.iceberg.HasTableOperations) table).operations().current().formatVersion();
  }
}
