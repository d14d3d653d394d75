package dev.floe.worker.maintain;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Removes files under the table's location that no snapshot, manifest or metadata file refers to
 * (left by crashed writers and lost commits), and only those older than a safety age, so a commit
 * in flight never loses a file it is about to reference.
 */
final class OrphanFiles {
  private OrphanFiles() {}

  /** @return how many files were removed, or -1 when the table's storage cannot list files */
  static int remove(Table table, long olderThanMillis) {
    if (!(table.io() instanceof SupportsPrefixOperations io)) {
      return -1;
    }
    Set<String> reachable = reachable(table);
    List<String> orphans = new ArrayList<>();
    for (FileInfo f : io.listPrefix(table.location())) {
      if (f.createdAtMillis() < olderThanMillis && !reachable.contains(normalise(f.location()))) {
        orphans.add(f.location());
      }
    }
    orphans.forEach(io::deleteFile);
    return orphans.size();
  }

  private static Set<String> reachable(Table table) {
    Set<String> out = new HashSet<>();
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    out.add(normalise(metadata.metadataFileLocation()));
    metadata.previousFiles().forEach(e -> out.add(normalise(e.file())));
    for (StatisticsFile s : table.statisticsFiles()) {
      out.add(normalise(s.path()));
    }
    for (Snapshot s : table.snapshots()) {
      // Floe's ledger of key changes waiting for their other half, named by the snapshot summary.
      s.summary().forEach((k, v) -> {
        if (k.startsWith(dev.floe.worker.commit.OffsetLedger.MOVES_PREFIX)) {
          out.add(normalise(v));
        }
      });
      if (s.manifestListLocation() != null) {
        out.add(normalise(s.manifestListLocation()));
      }
      for (ManifestFile m : s.allManifests(table.io())) {
        out.add(normalise(m.path()));
        try {
          if (m.content() == org.apache.iceberg.ManifestContent.DATA) {
            try (ManifestReader<DataFile> r = ManifestFiles.read(m, table.io(), table.specs())) {
              r.forEach(f -> out.add(normalise(f.location())));
            }
          } else {
            try (ManifestReader<DeleteFile> r = ManifestFiles.readDeleteManifest(m, table.io(), table.specs())) {
              r.forEach(f -> out.add(normalise(f.location())));
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    // A Hadoop catalog's pointer to the current metadata file.
    out.add(normalise(table.location() + "/metadata/version-hint.text"));
    return out;
  }

  /** file:/x, file:///x and /x are the same local file. */
  static String normalise(String location) {
    if (location.startsWith("file:")) {
      String rest = location.substring("file:".length());
      while (rest.startsWith("//")) {
        rest = rest.substring(1);
      }
      return rest;
    }
    return location;
  }
}
