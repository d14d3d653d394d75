package dev.floe.worker.inspect;

import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * What a table costs its readers: files, the rows its data files hold, the deletes readers apply,
 * and the live rows left. {@code deadRowFraction} is the share of rows in data files that readers
 * read only to discard: what compaction removes.
 */
public record TableFacts(int snapshots, long dataFiles, long deleteFiles, long dataFileRows, long positionDeletes,
    long equalityDeletes, Long liveRows, Double deadRowFraction) {

  /** The facts of the table's current snapshot; {@code countLiveRows} scans the key columns to count the rows readers see. */
  public static TableFacts of(Table table, boolean countLiveRows) {
    Snapshot current = table.currentSnapshot();
    int snapshots = 0;
    for (Snapshot ignored : table.snapshots()) {
      snapshots++;
    }
    if (current == null) {
      return new TableFacts(snapshots, 0, 0, 0, 0, 0, countLiveRows ? 0L : null, countLiveRows ? 0.0 : null);
    }
    Map<String, String> s = current.summary();
    long rows = number(s, SnapshotSummary.TOTAL_RECORDS_PROP);
    Long live = countLiveRows ? liveRows(table) : null;
    Double dead = live == null ? null : rows == 0 ? 0.0 : Math.max(0, rows - live) / (double) rows;
    return new TableFacts(snapshots, number(s, SnapshotSummary.TOTAL_DATA_FILES_PROP), number(s, SnapshotSummary.TOTAL_DELETE_FILES_PROP),
        rows, number(s, SnapshotSummary.TOTAL_POS_DELETES_PROP), number(s, SnapshotSummary.TOTAL_EQ_DELETES_PROP), live, dead);
  }

  private static long liveRows(Table table) {
    // Only the key columns: every delete still applies, and little else is read.
    var keys = table.schema().identifierFieldNames();
    var scan = IcebergGenerics.read(table);
    if (!keys.isEmpty()) {
      scan = scan.select(keys);
    }
    long n = 0;
    try (CloseableIterable<Record> rows = scan.build()) {
      for (Record ignored : rows) {
        n++;
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot count the live rows of " + table.name(), e);
    }
    return n;
  }

  private static long number(Map<String, String> summary, String key) {
    String v = summary.get(key);
    return v == null ? 0 : Long.parseLong(v);
  }
}
