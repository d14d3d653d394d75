package dev.floe.worker.runtime;

/** A failure no retry can cure (see {@link FailureClassifier}): the sink, or its table, stops with the cause attached. */
public class PermanentFailureException extends RuntimeException {
  public PermanentFailureException(String message, Throwable cause) {
    super(message, cause);
  }
}
