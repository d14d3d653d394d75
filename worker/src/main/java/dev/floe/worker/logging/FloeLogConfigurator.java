package dev.floe.worker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Map;

/**
 * The worker's logging, configured in code: one line per event on stderr, or one JSON object per
 * line on stdout when {@value #FORMAT_PROPERTY} is {@code json}, every line redacted, libraries at
 * WARN and Floe at {@code FLOE_LOG_LEVEL} (INFO). Logback's XML configurator took ~0.3 s of every
 * start, which a worker woken from zero pays each time. The {@code floe} command sets
 * {@value #FORMAT_PROPERTY}, so it logs this way whatever logback files the class path holds; a
 * {@code logback.configurationFile} still wins. Without the property (the operator, tests in
 * process) a {@code logback-test.xml} or {@code logback.xml} on the class path is used as before.
 */
public final class FloeLogConfigurator extends ContextAwareBase implements Configurator {
  /** The system property that asks for JSON lines. */
  public static final String FORMAT_PROPERTY = "floe.log.format";
  static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{0} - %msg%n";
  /** Libraries that are loud at INFO: what they warn of still shows. */
  static final Map<String, Level> LIBRARY_LEVELS = Map.of(
      "org.apache.iceberg", Level.WARN,
      "org.apache.hadoop", Level.ERROR,
      "org.apache.kafka", Level.WARN,
      "kafka", Level.WARN,
      "org.apache.kafka.clients.NetworkClient", Level.ERROR,
      "org.apache.kafka.controller", Level.ERROR,
      "org.apache.parquet", Level.WARN);

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    String format = System.getProperty(FORMAT_PROPERTY);
    ClassLoader loader = FloeLogConfigurator.class.getClassLoader();
    boolean fileGiven = System.getProperty("logback.configurationFile") != null;
    if (fileGiven || (format == null && (loader.getResource("logback-test.xml") != null || loader.getResource("logback.xml") != null))) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    configure(context, "json".equalsIgnoreCase(format), System.getenv("FLOE_LOG_LEVEL"));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /**
   * Configures {@code context} as the worker logs: JSON lines or text, Floe's own level from
   * {@code floeLevel} (INFO when null or unknown).
   *
   * @return the one appender, named OUT
   */
  public static ConsoleAppender<ILoggingEvent> configure(LoggerContext context, boolean json, String floeLevel) {
    ConsoleAppender<ILoggingEvent> out = new ConsoleAppender<>();
    out.setContext(context);
    out.setName("OUT");
    out.setEncoder(json ? jsonEncoder(context) : textEncoder(context));
    if (!json) {
      out.setTarget("System.err");
    }
    out.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(out);
    LIBRARY_LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
    context.getLogger("dev.floe").setLevel(Level.toLevel(floeLevel, Level.INFO));
    return out;
  }

  private static Encoder<ILoggingEvent> textEncoder(LoggerContext context) {
    RedactingPatternLayoutEncoder encoder = new RedactingPatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    return encoder;
  }

  private static Encoder<ILoggingEvent> jsonEncoder(LoggerContext context) {
    // "message" alone is the unfilled template ("{} failing, retrying: {}"): write the filled one
    // ("formattedMessage") instead; the arguments are in it.
    RedactingJsonEncoder encoder = new RedactingJsonEncoder();
    encoder.setContext(context);
    encoder.setWithMDC(false);
    encoder.setWithArguments(false);
    encoder.setWithMessage(false);
    encoder.setWithFormattedMessage(true);
    encoder.start();
    return encoder;
  }
}
