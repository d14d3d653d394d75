package dev.floe.worker.maintain;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Table;

/** The live delete files of a table's current snapshot, read from its delete manifests. */
final class AllDeleteFiles {
  private AllDeleteFiles() {}

  static List<DeleteFile> of(Table table) {
    List<DeleteFile> out = new ArrayList<>();
    for (ManifestFile m : table.currentSnapshot().deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader = ManifestFiles.readDeleteManifest(m, table.io(), table.specs())) {
        for (DeleteFile d : reader) {
          out.add(d.copy());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }
}
