package dev.floe.worker.engine;

import dev.floe.worker.decode.RejectedRecord;
import java.util.List;

/** Records were rejected and the sink is configured with {@code onError: fail}; nothing was committed. */
public class RejectedRecordsException extends RuntimeException {
  private final List<RejectedRecord> rejected;

  public RejectedRecordsException(List<RejectedRecord> rejected) {
    super(rejected.size() + " record(s) rejected, first: " + rejected.get(0));
    this.rejected = List.copyOf(rejected);
  }

  public List<RejectedRecord> rejected() {
    return rejected;
  }
}
