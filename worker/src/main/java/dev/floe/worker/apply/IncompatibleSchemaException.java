package dev.floe.worker.apply;

import dev.floe.worker.decode.RawRecord;
import java.util.List;

/**
 * A source schema change the table cannot follow without losing data (a type narrowed or changed
 * kind, the key changed). It stops the sink; the offending records go to the dead-letter topic.
 */
public class IncompatibleSchemaException extends RuntimeException {
  private final List<RawRecord> offending;

  public IncompatibleSchemaException(String message, List<RawRecord> offending) {
    super(message);
    this.offending = List.copyOf(offending);
  }

  public List<RawRecord> offending() {
    return offending;
  }
}
