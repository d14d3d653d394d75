package dev.floe.worker.fold;

import java.util.Arrays;

/** A primary-key value: the key columns' values in the table's key order. */
public final class RowKey {
  private final Object[] values;
  private final int hash;

  public RowKey(Object[] values) {
    this.values = values;
    this.hash = Arrays.hashCode(values);
  }

  public Object get(int i) {
    return values[i];
  }

  public int size() {
    return values.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowKey other && hash == other.hash && Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return Arrays.toString(values);
  }
}
