package dev.floe.worker.engine;

import dev.floe.worker.decode.RejectedRecord;
import java.util.List;

/**
 * Where rejected records go before their batch commits. {@link #send} returns once they are
 * durable, so a crash after the commit never loses one (a crash before it may send one twice).
 */
@FunctionalInterface
public interface DeadLetters {
  void send(List<RejectedRecord> rejected);

  /** For callers that only count rejections. */
  DeadLetters DISCARD = rejected -> {};
}
