package dev.floe.worker.decode;

/** What a change event does to its row. */
public enum Op {
  /** Insert, update or snapshot read: the row now has these values. */
  UPSERT,
  /** The row is gone. */
  DELETE,
  /** Every row of the table is gone. */
  TRUNCATE
}
