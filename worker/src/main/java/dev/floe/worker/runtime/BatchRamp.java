package dev.floe.worker.runtime;

/**
 * How many records the batches of a freshly started worker may hold: the first a sixteenth of
 * {@code commit.maxRecords}, each next one twice the one before, up to {@code maxRecords}. A worker
 * that starts on a backlog would otherwise leave its applying thread idle while the first full
 * batch is read (4.2 s of an 11.2 s drain of 1M records, measured), and apply it on code the JIT has
 * not compiled yet; a small first batch starts applying within a poll or two, warms that code up,
 * and commits the first rows sooner. Limits too small for a ramp to matter are held from the start.
 */
record BatchRamp(int first, int max) {
  /** Batches below this size are not worth an extra commit each. */
  static final int SMALLEST_FIRST = 20_000;
  /** The first batch is this fraction of the limit: four doublings reach it. */
  static final int FIRST_DIVISOR = 16;

  BatchRamp {
    if (first < 1 || first > max) {
      throw new IllegalArgumentException("a ramp from " + first + " to " + max + " records");
    }
  }

  /** The ramp for a record limit: none (the limit from the first batch) when its sixteenth would be under {@link #SMALLEST_FIRST}. */
  static BatchRamp upTo(int maxRecords) {
    int first = maxRecords / FIRST_DIVISOR;
    return new BatchRamp(first < SMALLEST_FIRST ? maxRecords : first, maxRecords);
  }

  /** No ramp: every batch may hold {@code maxRecords}. */
  static BatchRamp none(int maxRecords) {
    return new BatchRamp(maxRecords, maxRecords);
  }

  /** The limit of the batch after one of {@code cap} records. */
  int next(int cap) {
    return (int) Math.min(max, 2L * cap);
  }
}
