package dev.floe.worker.maintain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Locale;

/** What one {@code floe compact} run did, for people (text) and for the operator's status (JSON). */
public record CompactionReport(
    String table,
    double seconds,
    TableStats before,
    TableStats after,
    int groupsRewritten,
    int groupsFailed,
    int dataFilesRewritten,
    int dataFilesWritten,
    long rowsWritten,
    int deleteFilesRemoved,
    int snapshotsExpired,
    int orphansRemoved,
    int manifestsRewritten,
    List<String> errors) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Exit code for a Job: 0 all done, 3 partial (some groups lost a race; the next run retries), 1 failed. */
  public int exitCode() {
    if (!errors.isEmpty() && groupsRewritten == 0 && groupsFailed == 0) {
      return 1;
    }
    return groupsFailed > 0 || !errors.isEmpty() ? 3 : 0;
  }

  /** The exit code of several compactions: failed if one failed, else partial if one was, else done. */
  public static int worstExitCode(List<CompactionReport> reports) {
    List<Integer> codes = reports.stream().map(CompactionReport::exitCode).toList();
    return codes.contains(1) ? 1 : codes.contains(3) ? 3 : 0;
  }

  /**
   * The totals over several tables' compactions, in the shape of one report (what fits a Job's
   * termination message, which Kubernetes cuts at 4 KiB, however many tables a sink has); errors
   * are named by table, at most ten.
   */
  public static CompactionReport total(String name, List<CompactionReport> reports) {
    List<String> errors = reports.stream().flatMap(r -> r.errors().stream().map(e -> r.table() + ": " + e)).toList();
    return new CompactionReport(name + " (" + reports.size() + " tables)",
        reports.stream().mapToDouble(CompactionReport::seconds).sum(),
        sum(reports.stream().map(CompactionReport::before).toList()),
        sum(reports.stream().map(CompactionReport::after).toList()),
        reports.stream().mapToInt(CompactionReport::groupsRewritten).sum(),
        reports.stream().mapToInt(CompactionReport::groupsFailed).sum(),
        reports.stream().mapToInt(CompactionReport::dataFilesRewritten).sum(),
        reports.stream().mapToInt(CompactionReport::dataFilesWritten).sum(),
        reports.stream().mapToLong(CompactionReport::rowsWritten).sum(),
        reports.stream().mapToInt(CompactionReport::deleteFilesRemoved).sum(),
        reports.stream().mapToInt(CompactionReport::snapshotsExpired).sum(),
        reports.stream().mapToInt(CompactionReport::orphansRemoved).sum(),
        reports.stream().mapToInt(CompactionReport::manifestsRewritten).sum(),
        errors.size() <= 10 ? errors : errors.subList(0, 10));
  }

  private static TableStats sum(List<TableStats> stats) {
    return new TableStats(stats.stream().mapToLong(TableStats::dataFiles).sum(), stats.stream().mapToLong(TableStats::deleteFiles).sum(),
        stats.stream().mapToLong(TableStats::bytes).sum(), stats.stream().mapToLong(TableStats::snapshots).sum());
  }

  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public String toText() {
    return String.format(Locale.ROOT, """
        floe compact %s: %.1f s
          data files    %,d -> %,d  (%,d rewritten in %d group(s) into %,d; %d group(s) failed)
          delete files  %,d -> %,d  (%d removed)
          bytes         %,d -> %,d
          rows          %,d live
          snapshots     %d expired; orphans %d removed; manifests %d rewritten
        """, table, seconds, before.dataFiles(), after.dataFiles(), dataFilesRewritten, groupsRewritten, dataFilesWritten,
        groupsFailed, before.deleteFiles(), after.deleteFiles(), deleteFilesRemoved, before.bytes(), after.bytes(),
        rowsWritten, snapshotsExpired, orphansRemoved, manifestsRewritten)
        + (errors.isEmpty() ? "" : "  errors:\n" + String.join("\n", errors.stream().map(e -> "    - " + e).toList()) + "\n");
  }

  /** Files and bytes of a table's current snapshot. */
  public record TableStats(long dataFiles, long deleteFiles, long bytes, long snapshots) {}
}
