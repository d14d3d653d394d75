package dev.floe.worker.decode;

/**
 * The outcome of decoding one record: an event ({@link ChangeEvent}, itself the outcome: a batch
 * holds one per record until it commits, so no wrapper; or the same event {@link PackedChange
 * packed}), a record to skip, or a rejection.
 */
public sealed interface Decoded permits ChangeEvent, PackedChange, Decoded.Skip, Decoded.Rejected {

  /**
   * A record that carries no change (a tombstone after a delete). It names no record: a batch holds
   * the outcome of each of its records until it commits, and one shared outcome per reason adds
   * nothing for the collector to copy (a tenth of {@code orders} records are tombstones).
   */
  record Skip(String why) implements Decoded {
    /** A tombstone: Kafka's null value after a delete, for log compaction. */
    public static final Skip TOMBSTONE = new Skip("tombstone");
  }

  /** A record that cannot be decoded; it goes to the dead-letter topic. */
  record Rejected(RejectedRecord rejected) implements Decoded {}
}
