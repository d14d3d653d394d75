package dev.floe.worker.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** Full scans of a table with Iceberg's generic reader, for the benchmarks. */
final class TableScans {
  private TableScans() {}

  /** Rows read by a full scan, deletes applied. */
  static long scan(Table table) {
    long n = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record ignored : records) {
        n++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return n;
  }

  /** The best of three full scans, in seconds (the machine is shared and noisy). */
  static double bestOf3(Table table) {
    double best = Double.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      long t0 = System.nanoTime();
      scan(table);
      best = Math.min(best, (System.nanoTime() - t0) / 1e9);
    }
    return best;
  }
}
