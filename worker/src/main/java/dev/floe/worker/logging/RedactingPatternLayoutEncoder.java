package dev.floe.worker.logging;

import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * Logback's {@link PatternLayoutEncoder} over the {@link RedactedEvent} view: every converter of
 * the pattern ({@code %msg}, the throwable, {@code %mdc}) reads redacted text, so the pattern
 * itself needs no special words and cannot forget one.
 */
public class RedactingPatternLayoutEncoder extends PatternLayoutEncoder {
  @Override
  public byte[] encode(ILoggingEvent event) {
    return super.encode(new RedactedEvent(event));
  }
}
