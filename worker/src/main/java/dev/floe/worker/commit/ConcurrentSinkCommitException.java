package dev.floe.worker.commit;

/**
 * Another commit of the same sink landed after the snapshot this commit's offsets were computed
 * from; the offsets must be recomputed (and the batch checked against what is now applied).
 */
public class ConcurrentSinkCommitException extends RuntimeException {
  public ConcurrentSinkCommitException(String message) {
    super(message);
  }
}
