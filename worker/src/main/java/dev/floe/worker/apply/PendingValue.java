package dev.floe.worker.apply;

/**
 * A column value a primary-key update left pending: the create half arrived before its delete half
 * (the old key's partition lags), so the row took the old key's value as far as it was read
 * ({@code bestEffort}); the delete half at {@code lsn} settles it. Lives only while a batch is
 * resolved and in the {@link MoveLedger}; never written to a data file.
 */
record PendingValue(long lsn, int column, Object bestEffort) {

  /** The value to write now: the best effort behind any pending marker. */
  static Object unwrap(Object v) {
    return v instanceof PendingValue p ? p.bestEffort() : v;
  }
}
