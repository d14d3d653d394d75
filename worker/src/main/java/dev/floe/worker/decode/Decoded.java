package dev.floe.worker.decode;

/**
 * The outcome of decoding one record: an event ({@link ChangeEvent}, itself the outcome: a batch
 * holds one per record until it commits, so no wrapper; or the same event {@link PackedChange
 * packed}), a record to skip, or a rejection.
 */
public sealed interface Decoded permits ChangeEvent, PackedChange, Decoded.Skip, Decoded.Rejected {

  /** A record that carries no change (a tombstone after a delete). */
  record Skip(RawRecord record, String why) implements Decoded {}

  /** A record that cannot be decoded; it goes to the dead-letter topic. */
  record Rejected(RejectedRecord rejected) implements Decoded {}
}
