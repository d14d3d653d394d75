package dev.floe.worker.runtime;

import dev.floe.worker.config.Redactor;
import org.slf4j.Logger;

/** Logs an outage once when it starts and once when it ends, not on every retry. */
public final class OutageLog {
  private final Logger log;
  private final String what;
  // written by the thread that applies batches, read by readiness checks
  private volatile String failing;
  private volatile int attempts;

  public OutageLog(Logger log, String what) {
    this.log = log;
    this.what = what;
  }

  public void failed(Throwable e) {
    attempts++;
    // the whole chain (the root cause is what an operator acts on), redacted here too, not only by
    // the log encoder: the reason is also compared and kept
    String reason = Redactor.redact(FailureClassifier.describe(e));
    if (failing == null || !failing.equals(reason)) {
      log.warn("{} failing, retrying with backoff: {}", what, reason);
      failing = reason;
    }
  }

  public void succeeded() {
    if (failing != null) {
      log.info("{} recovered after {} attempt(s)", what, attempts);
    }
    failing = null;
    attempts = 0;
  }

  public boolean isFailing() {
    return failing != null;
  }
}
