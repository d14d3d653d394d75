package dev.floe.worker.apply;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The live data files of a snapshot by location, read from its data manifests alone: what a
 * persisted index needs to turn the file names it holds back into files. Planning a scan for them
 * also read the delete manifests and matched every delete to its files, class loading and work that
 * a worker woken from zero paid on its critical path (0.6 s of a 0.9 s load of 889k keys, alone on
 * the machine) and that nothing else at start needs. {@link PrimaryKeyIndexTest} holds it to a scan's plan.
 */
final class LiveDataFiles {
  private LiveDataFiles() {}

  /** The snapshot's live data files by location, without their column statistics (as a scan's plan holds them). */
  static Map<String, DataFile> of(Table table, long snapshotId) {
    Snapshot snapshot = table.snapshot(snapshotId);
    if (snapshot == null) {
      throw new IllegalStateException("snapshot " + snapshotId + " is not in the table's metadata");
    }
    Map<String, DataFile> live = new HashMap<>();
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      if (!manifest.hasAddedFiles() && !manifest.hasExistingFiles()) {
        continue; // only removals
      }
      try (ManifestReader<DataFile> files = ManifestFiles.read(manifest, table.io(), table.specs())) {
        for (DataFile f : files) { // live entries only, each a copy
          live.put(f.location(), f.copyWithoutStats());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return live;
  }

  /** {@link #of} on a thread of its own, started now: beside reading the index that names them. */
  static CompletableFuture<Map<String, DataFile>> beside(Table table, long snapshotId) {
    return CompletableFuture.supplyAsync(() -> of(table, snapshotId), task -> {
      Thread t = new Thread(task, "floe-live-files");
      t.setDaemon(true);
      t.start();
    });
  }
}
