package dev.floe.worker.decode;

/** The outcome of decoding one record: an event, a record to skip, or a rejection. */
public sealed interface Decoded {
  /** A change to apply. */
  record Event(ChangeEvent event) implements Decoded {}

  /** A record that carries no change (a tombstone after a delete). */
  record Skip(RawRecord record, String why) implements Decoded {}

  /** A record that cannot be decoded; it goes to the dead-letter topic. */
  record Rejected(RejectedRecord rejected) implements Decoded {}
}
