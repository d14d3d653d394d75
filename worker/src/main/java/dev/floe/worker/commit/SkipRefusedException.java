package dev.floe.worker.commit;

/** A skip that would drop more than the one record the sink stands at, or a record already applied. */
public class SkipRefusedException extends RuntimeException {
  public SkipRefusedException(String message) {
    super(message);
  }
}
