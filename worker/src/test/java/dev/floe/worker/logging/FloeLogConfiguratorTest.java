package dev.floe.worker.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The worker's logging in code: redacted text lines, quiet libraries, Floe's level from the environment. */
class FloeLogConfiguratorTest {
  @Test
  void textLinesAreRedactedAndLibrariesKeptQuiet() {
    // given the worker's text logging, Floe at DEBUG
    LoggerContext context = new LoggerContext();
    ConsoleAppender<ILoggingEvent> out = FloeLogConfigurator.configure(context, false, "DEBUG");

    // when a line with a credential in a URI is encoded
    ch.qos.logback.classic.Logger logger = context.getLogger("dev.floe.worker.runtime.SinkRunner");
    LoggingEvent event = new LoggingEvent("org.slf4j.Logger", logger, Level.INFO, "catalog at {}", null,
        new Object[] {"http://floe:s3cret@catalog:8181/"});
    String line = new String(out.getEncoder().encode(event), StandardCharsets.UTF_8);

    // then the line is the pattern's, the password masked; libraries are at WARN or above, Floe at DEBUG
    // (the user part is masked too when another test of this JVM resolved a secret of the same text)
    assertThat(line).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  SinkRunner - catalog at http://[^:]+:\\*\\*\\*\\*@catalog:8181/\\n")
        .doesNotContain("s3cret");
    assertThat(out.getTarget()).isEqualTo("System.err");
    assertThat(context.getLogger("org.apache.iceberg.BaseMetastoreCatalog").getEffectiveLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("org.apache.hadoop.util.NativeCodeLoader").getEffectiveLevel()).isEqualTo(Level.ERROR);
    assertThat(context.getLogger("dev.floe.worker.engine.SinkEngine").getEffectiveLevel()).isEqualTo(Level.DEBUG);
    assertThat(context.getLogger("io.netty").getEffectiveLevel()).isEqualTo(Level.WARN);
    context.stop();
  }

  @Test
  void floeLogsAtInfoUnlessToldOtherwise() {
    LoggerContext context = new LoggerContext();
    FloeLogConfigurator.configure(context, true, null);
    assertThat(context.getLogger("dev.floe").getEffectiveLevel()).isEqualTo(Level.INFO);
    context.stop();
  }
}
