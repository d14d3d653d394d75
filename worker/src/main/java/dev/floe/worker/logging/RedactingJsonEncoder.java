package dev.floe.worker.logging;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * Logback's {@link JsonEncoder} over the {@link RedactedEvent} view, so no JSON log line (Floe's
 * own or a library's: Iceberg's REST client, Kafka) carries a credential. JsonEncoder has no
 * field-provider hook; its {@code encode} is the one public seam.
 */
public class RedactingJsonEncoder extends JsonEncoder {
  @Override
  public byte[] encode(ILoggingEvent event) {
    return super.encode(new RedactedEvent(event));
  }
}
