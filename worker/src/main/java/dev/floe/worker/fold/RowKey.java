package dev.floe.worker.fold;

import java.util.Arrays;

/**
 * A primary-key value: the key columns' values in the table's key order. A key of one column, the
 * common shape, holds its value alone, without an array: a batch holds one key per row it changes,
 * and every object a held batch keeps costs the collector again at each collection.
 */
public final class RowKey {
  /** The values of a key of two or more columns; null for a key of one. */
  private final Object[] values;
  /** The value of a key of one column. */
  private final Object only;
  private final int hash;

  /** @param values the key's values; the key keeps the array itself when it has several (the caller must not change it) */
  public RowKey(Object[] values) {
    this.hash = Arrays.hashCode(values);
    if (values.length == 1) {
      this.values = null;
      this.only = values[0];
    } else {
      this.values = values;
      this.only = null;
    }
  }

  public Object get(int i) {
    if (values == null) {
      java.util.Objects.checkIndex(i, 1);
      return only;
    }
    return values[i];
  }

  public int size() {
    return values == null ? 1 : values.length;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RowKey other) || hash != other.hash) {
      return false;
    }
    if (values == null) {
      return other.values == null && java.util.Objects.equals(only, other.only);
    }
    return Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return values == null ? "[" + only + "]" : Arrays.toString(values);
  }
}
