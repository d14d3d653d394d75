package dev.floe.worker.decode;

/** A record that could not be decoded or applied, and exactly why; bound for the dead-letter topic. */
public record RejectedRecord(RawRecord record, String reason) {
  @Override
  public String toString() {
    return record + ": " + reason;
  }
}
