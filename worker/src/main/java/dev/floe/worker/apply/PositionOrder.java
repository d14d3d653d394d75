package dev.floe.worker.apply;

import java.util.Arrays;

/** The order in which to visit rows of one file so their positions ascend: reads that stream instead of jumping. */
final class PositionOrder {
  /** Indexes below this bound ride in the low bits of one sortable long beside their position. */
  private static final int INDEX_BITS = 24;

  private PositionOrder() {}

  /** The indexes {@code 0..count-1} of {@code positions}, ordered by position (ties by index). */
  static int[] of(long[] positions, int count) {
    int[] order = new int[count];
    if (count < (1 << INDEX_BITS) && fitsBesideAnIndex(positions, count)) {
      // one primitive sort of (position, index) pairs packed in a long: no boxed comparator
      long[] packed = new long[count];
      for (int i = 0; i < count; i++) {
        packed[i] = (positions[i] << INDEX_BITS) | i;
      }
      Arrays.sort(packed);
      for (int i = 0; i < count; i++) {
        order[i] = (int) (packed[i] & ((1 << INDEX_BITS) - 1));
      }
      return order;
    }
    Integer[] boxed = new Integer[count];
    for (int i = 0; i < count; i++) {
      boxed[i] = i;
    }
    Arrays.sort(boxed, (a, b) -> a.equals(b) ? 0 : positions[a] != positions[b] ? Long.compare(positions[a], positions[b]) : Integer.compare(a, b));
    for (int i = 0; i < count; i++) {
      order[i] = boxed[i];
    }
    return order;
  }

  private static boolean fitsBesideAnIndex(long[] positions, int count) {
    for (int i = 0; i < count; i++) {
      if (positions[i] < 0 || positions[i] >= 1L << (63 - INDEX_BITS)) {
        return false;
      }
    }
    return true;
  }
}
