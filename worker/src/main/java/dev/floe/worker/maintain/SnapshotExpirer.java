package dev.floe.worker.maintain;

import dev.floe.worker.commit.OffsetLedger;
import dev.floe.worker.commit.SinkOffsets;
import java.time.Duration;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Expires snapshots older than the retention, keeping the newest N, and never one that the sink's
 * offsets are read through: the newest snapshot carrying the offsets and every snapshot after it
 * stay, so a worker starting from zero still finds what was applied.
 */
final class SnapshotExpirer {
  private SnapshotExpirer() {}

  /** @return how many snapshots were expired */
  static int expire(Table table, String sinkId, Duration olderThan, int retainLast, long nowMillis) {
    if (table.currentSnapshot() == null) {
      return 0;
    }
    long cutoff = nowMillis - olderThan.toMillis();
    SinkOffsets offsets = OffsetLedger.read(table, sinkId);
    if (offsets.snapshotId() != null) {
      Snapshot carrier = table.snapshot(offsets.snapshotId());
      cutoff = Math.min(cutoff, carrier.timestampMillis());
    }
    int before = count(table);
    // Files are not deleted here. Iceberg's expire-time cleanup deletes a format-v3 Puffin file
    // when one of its deletion vectors was replaced, although its sibling vectors are still live
    // (CompactionTest shows it). Unreferenced files go with orphan removal, which goes by
    // reachability, once older than its safety age.
    table.expireSnapshots().expireOlderThan(cutoff).retainLast(Math.max(1, retainLast)).cleanExpiredFiles(false).commit();
    table.refresh();
    return before - count(table);
  }

  private static int count(Table table) {
    int n = 0;
    for (Snapshot ignored : table.snapshots()) {
      n++;
    }
    return n;
  }
}
