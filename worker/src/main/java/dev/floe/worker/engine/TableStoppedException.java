package dev.floe.worker.engine;

import dev.floe.worker.apply.IncompatibleSchemaException;
import dev.floe.worker.commit.StopPoint;
import dev.floe.worker.decode.RawRecord;
import java.util.List;

/**
 * A table stopped at records it cannot take: the batch's records before them were committed
 * ({@link #committed()}), the table's offsets point at them, and they are in the dead-letter topic
 * (sent once: a restart that meets them again does not send them again).
 */
public class TableStoppedException extends IncompatibleSchemaException {
  private final transient BatchResult committed;
  private final List<StopPoint> stops;

  public TableStoppedException(String message, List<RawRecord> offending, BatchResult committed, List<StopPoint> stops) {
    super(message, offending);
    this.committed = committed;
    this.stops = List.copyOf(stops);
  }

  /** What the records before the stop did (their commit, or nothing to commit). */
  public BatchResult committed() {
    return committed;
  }

  /** Where each stopped partition stands, and why. */
  public List<StopPoint> stops() {
    return stops;
  }
}
