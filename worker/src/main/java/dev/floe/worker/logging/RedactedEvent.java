package dev.floe.worker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.LoggerContextVO;
import dev.floe.worker.config.Redactor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Marker;
import org.slf4j.event.KeyValuePair;

/**
 * A logging event as an encoder may see it: message, arguments, throwable messages, MDC and
 * key-value pairs passed through {@link Redactor}; everything else is the original's.
 */
final class RedactedEvent implements ILoggingEvent {
  private final ILoggingEvent event;
  private String formatted;

  RedactedEvent(ILoggingEvent event) {
    this.event = event;
  }

  @Override
  public String getFormattedMessage() {
    if (formatted == null) {
      formatted = Redactor.redact(event.getFormattedMessage());
    }
    return formatted;
  }

  @Override
  public String getMessage() {
    return Redactor.redact(event.getMessage());
  }

  @Override
  public Object[] getArgumentArray() {
    Object[] args = event.getArgumentArray();
    if (args == null) {
      return null;
    }
    Object[] out = new Object[args.length];
    for (int i = 0; i < args.length; i++) {
      out[i] = args[i] == null ? null : Redactor.redact(String.valueOf(args[i]));
    }
    return out;
  }

  @Override
  public IThrowableProxy getThrowableProxy() {
    return RedactedThrowableProxy.of(event.getThrowableProxy());
  }

  @Override
  public Map<String, String> getMDCPropertyMap() {
    return redact(event.getMDCPropertyMap());
  }

  @Override
  @SuppressWarnings("deprecation")
  public Map<String, String> getMdc() {
    return getMDCPropertyMap();
  }

  @Override
  public List<KeyValuePair> getKeyValuePairs() {
    List<KeyValuePair> pairs = event.getKeyValuePairs();
    return pairs == null ? null : pairs.stream()
        .map(p -> new KeyValuePair(p.key, p.value == null ? null : Redactor.redact(String.valueOf(p.value)))).toList();
  }

  @Override
  public String getThreadName() {
    return event.getThreadName();
  }

  @Override
  public Level getLevel() {
    return event.getLevel();
  }

  @Override
  public String getLoggerName() {
    return event.getLoggerName();
  }

  @Override
  public LoggerContextVO getLoggerContextVO() {
    return event.getLoggerContextVO();
  }

  @Override
  public StackTraceElement[] getCallerData() {
    return event.getCallerData();
  }

  @Override
  public boolean hasCallerData() {
    return event.hasCallerData();
  }

  @Override
  public List<Marker> getMarkerList() {
    return event.getMarkerList();
  }

  @Override
  public long getTimeStamp() {
    return event.getTimeStamp();
  }

  @Override
  public int getNanoseconds() {
    return event.getNanoseconds();
  }

  @Override
  public long getSequenceNumber() {
    return event.getSequenceNumber();
  }

  @Override
  public void prepareForDeferredProcessing() {
    event.prepareForDeferredProcessing();
  }

  private static Map<String, String> redact(Map<String, String> map) {
    if (map == null || map.isEmpty()) {
      return map;
    }
    Map<String, String> out = new LinkedHashMap<>();
    map.forEach((k, v) -> out.put(k, Redactor.redact(v)));
    return out;
  }
}
