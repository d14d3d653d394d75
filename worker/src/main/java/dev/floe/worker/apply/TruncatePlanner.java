package dev.floe.worker.apply;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Decides what a TRUNCATE at source LSN {@code T} removes. A truncate lands in one partition while
 * others go on, so it can arrive after rows changed later than it were committed from other
 * partitions. With the {@code _floe_lsn} column the table knows each row's last change: when every
 * data file is older than {@code T} (file statistics say so) all files are dropped, the common and
 * cheap case; otherwise only the rows older than {@code T} are deleted, row by row.
 */
public final class TruncatePlanner {
  private TruncatePlanner() {}

  /** Files to drop whole, or rows to delete one by one. */
  public record Plan(boolean dropsAllFiles, List<DataFile> dataFiles, List<DeleteFile> deleteFiles, List<Object[]> rowsToDelete) {}

  public static Plan plan(Table table, long snapshotId, TableLayout layout, Long truncateLsn) {
    List<DataFile> data = new ArrayList<>();
    List<DeleteFile> deletes = new ArrayList<>();
    Set<String> seenDeletes = new HashSet<>();
    boolean allOlder = true;
    Types.NestedField lsn = layout.lsnColumn();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).planFiles()) {
      for (FileScanTask t : tasks) {
        data.add(t.file());
        t.deletes().stream().filter(d -> seenDeletes.add(d.location())).forEach(deletes::add);
        if (lsn != null && truncateLsn != null && !olderThan(t.file(), lsn.fieldId(), truncateLsn)) {
          allOlder = false;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (allOlder) {
      return new Plan(true, data, deletes, List.of());
    }
    List<Object[]> rows = new ArrayList<>();
    try (CloseableIterable<Record> older = IcebergGenerics.read(table).useSnapshot(snapshotId)
        .where(Expressions.or(Expressions.isNull(lsn.name()), Expressions.lessThan(lsn.name(), truncateLsn)))
        .build()) {
      for (Record r : older) {
        Object v = r.getField(lsn.name());
        if (v == null || (Long) v < truncateLsn) { // the filter is inclusive of whole files: re-check each row
          rows.add(layout.valuesOf(r));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Plan(false, List.of(), List.of(), rows);
  }

  /** True when the file's statistics prove every row's LSN is below {@code lsn}. */
  private static boolean olderThan(DataFile file, int fieldId, long lsn) {
    if (file.upperBounds() == null || file.nullValueCounts() == null) {
      return false;
    }
    ByteBuffer upper = file.upperBounds().get(fieldId);
    Long nulls = file.nullValueCounts().get(fieldId);
    if (upper == null) {
      return nulls != null && nulls.equals(file.recordCount()); // all null: written without LSNs
    }
    Long max = Conversions.fromByteBuffer(Types.LongType.get(), upper);
    return max < lsn;
  }
}
