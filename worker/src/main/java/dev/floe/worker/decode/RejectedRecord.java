package dev.floe.worker.decode;

/**
 * A record that could not be decoded or applied, and exactly why; bound for the dead-letter topic.
 * The reason is bounded here, where every rejection is made, so that no path can build one too
 * large to travel as a Kafka header (see {@link Reasons}).
 */
public record RejectedRecord(RawRecord record, String reason) {
  public RejectedRecord {
    reason = Reasons.bounded(reason);
  }

  @Override
  public String toString() {
    return record + ": " + reason;
  }
}
