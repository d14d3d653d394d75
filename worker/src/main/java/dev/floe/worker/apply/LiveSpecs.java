package dev.floe.worker.apply;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The partition specs that data files of a snapshot are written with, the current one first. After
 * a partition-spec change old files keep their spec, and an equality delete only reaches files of
 * its own spec and partition (or every file, from an unpartitioned spec): deletes go to each.
 */
public final class LiveSpecs {
  private LiveSpecs() {}

  public static List<PartitionSpec> of(Table table, Long snapshotId) {
    Set<Integer> ids = new LinkedHashSet<>();
    ids.add(table.spec().specId());
    Snapshot s = snapshotId == null ? null : table.snapshot(snapshotId);
    if (s != null) {
      for (ManifestFile m : s.dataManifests(table.io())) {
        if (m.hasAddedFiles() || m.hasExistingFiles()) {
          ids.add(m.partitionSpecId());
        }
      }
    }
    List<PartitionSpec> specs = new ArrayList<>();
    ids.forEach(id -> specs.add(table.specs().get(id)));
    return specs;
  }

  /** Whether deleting a key needs to know where its stored row lives. */
  public static boolean needPartition(List<PartitionSpec> specs) {
    return specs.stream().anyMatch(PartitionSpec::isPartitioned);
  }
}
