package dev.floe.worker.maintain;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * Chooses which data files to rewrite together: per partition (and spec), files that are small or
 * carry deletes, bin-packed into groups of about the target size, best payoff first (many files,
 * many deletes). A pure function of the scan tasks.
 */
public final class FileGroupPlanner {
  private FileGroupPlanner() {}

  /** Data files rewritten and committed together. */
  public record FileGroup(int specId, StructLike partition, List<FileScanTask> tasks, long bytes, int deleteFiles) {
    double score() {
      return (tasks.size() - 1) + 2.0 * deleteFiles;
    }
  }

  public static List<FileGroup> plan(Iterable<FileScanTask> tasks, int currentSpecId, long targetFileSize, int minInputFiles) {
    Map<Object, List<FileScanTask>> byPartition = new LinkedHashMap<>();
    for (FileScanTask t : tasks) {
      boolean small = t.file().fileSizeInBytes() < targetFileSize * 3 / 4;
      boolean oldSpec = t.file().specId() != currentSpecId;
      if (small || !t.deletes().isEmpty() || oldSpec) {
        Object key = List.of(t.file().specId(), StructLikeWrapper.forType(t.spec().partitionType()).set(t.file().partition()));
        byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(t);
      }
    }
    List<FileGroup> groups = new ArrayList<>();
    long maxGroupBytes = Math.max(targetFileSize * 8, 1L << 20);
    for (List<FileScanTask> candidates : byPartition.values()) {
      candidates.sort(Comparator.comparingLong((FileScanTask t) -> t.file().fileSizeInBytes()));
      List<FileScanTask> current = new ArrayList<>();
      long bytes = 0;
      for (FileScanTask t : candidates) {
        if (!current.isEmpty() && bytes + t.file().fileSizeInBytes() > maxGroupBytes) {
          add(groups, current, bytes, currentSpecId, minInputFiles);
          current = new ArrayList<>();
          bytes = 0;
        }
        current.add(t);
        bytes += t.file().fileSizeInBytes();
      }
      add(groups, current, bytes, currentSpecId, minInputFiles);
    }
    groups.sort(Comparator.comparingDouble(FileGroup::score).reversed());
    return groups;
  }

  private static void add(List<FileGroup> groups, List<FileScanTask> tasks, long bytes, int currentSpecId, int minInputFiles) {
    if (tasks.isEmpty()) {
      return;
    }
    int deletes = (int) tasks.stream().flatMap(t -> t.deletes().stream()).map(d -> d.location()).distinct().count();
    boolean oldSpec = tasks.get(0).file().specId() != currentSpecId;
    if (tasks.size() >= minInputFiles || deletes > 0 || oldSpec) {
      FileScanTask first = tasks.get(0);
      groups.add(new FileGroup(first.file().specId(), first.file().partition(), List.copyOf(tasks), bytes, deletes));
    }
  }
}
