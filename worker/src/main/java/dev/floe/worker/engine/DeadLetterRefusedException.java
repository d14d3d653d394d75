package dev.floe.worker.engine;

/**
 * Rejected records could not be dead-lettered for a reason that retrying does not cure (the
 * record is too large for the producer, the topic is not allowed, none is configured): the sink
 * must stop and say so, not retry as if Kafka were down.
 */
public class DeadLetterRefusedException extends RuntimeException {
  public DeadLetterRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
