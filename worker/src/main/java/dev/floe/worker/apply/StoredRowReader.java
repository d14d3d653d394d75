package dev.floe.worker.apply;

import dev.floe.worker.fold.RowKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;

/**
 * Reads the stored rows of given keys as of one snapshot, deletes applied. Simple and correct: a
 * filtered scan (an IN filter for few keys of a simple type, a full scan otherwise); the
 * primary-key index replaces it where speed matters.
 */
public final class StoredRowReader {
  private static final int IN_FILTER_LIMIT = 1_000;

  private StoredRowReader() {}

  public static Map<RowKey, Object[]> read(Table table, long snapshotId, TableLayout layout, Set<RowKey> keys) {
    Map<RowKey, Object[]> found = new HashMap<>();
    if (keys.isEmpty()) {
      return found;
    }
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table)
        .useSnapshot(snapshotId)
        .where(filter(layout, keys))
        .build()) {
      for (Record r : rows) {
        RowKey key = layout.keyOf(r);
        if (keys.contains(key)) {
          found.put(key, layout.valuesOf(r));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }

  private static Expression filter(TableLayout layout, Set<RowKey> keys) {
    if (layout.keyNames().length != 1 || keys.size() > IN_FILTER_LIMIT) {
      return Expressions.alwaysTrue();
    }
    String column = layout.keyNames()[0];
    Type type = layout.schema().findType(column);
    switch (type.typeId()) {
      // uuid and decimal stay out: their bound comparisons have differed between Iceberg versions
      case INTEGER, LONG, STRING -> {
        List<Object> values = keys.stream().map(k -> k.get(0)).toList();
        return Expressions.in(column, values.toArray());
      }
      default -> {
        return Expressions.alwaysTrue();
      }
    }
  }
}
