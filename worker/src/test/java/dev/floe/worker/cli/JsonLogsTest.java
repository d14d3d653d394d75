package dev.floe.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.logging.FloeLogConfigurator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** JSON logs are asked for as the operator asks (two arguments) and hold the filled message. */
class JsonLogsTest {
  @Test
  void theOperatorsTwoArgumentFormAndTheOneArgumentFormBothAskForJson() {
    // given the operator's worker arguments, and a person's
    String[] operator = {"run", "--config", "/etc/floe/config/sink.yaml", "--port", "8080", "--log-format", "json"};
    String[] person = {"run", "-c", "sink.yaml", "--log-format=json"};

    // then both ask for JSON, as does the environment, and text stays text
    assertThat(LogSetup.json(operator, null)).isTrue();
    assertThat(LogSetup.json(person, null)).isTrue();
    assertThat(LogSetup.json(new String[] {"run"}, "json")).isTrue();
    assertThat(LogSetup.json(new String[] {"run", "--log-format", "text"}, null)).isFalse();
    assertThat(LogSetup.json(new String[] {"run", "--log-format"}, null)).isFalse();
  }

  @Test
  void aJsonLogLineHoldsTheFilledMessage() throws Exception {
    // given the worker's JSON logging
    LoggerContext context = new LoggerContext();
    OutputStreamAppender<ILoggingEvent> out = FloeLogConfigurator.configure(context, true, null);

    // when a templated message is encoded
    ch.qos.logback.classic.Logger logger = context.getLogger("dev.floe.worker.runtime.SinkRunner");
    LoggingEvent event = new LoggingEvent("org.slf4j.Logger", logger, Level.WARN,
        "{} failing, retrying with backoff: {}", null, new Object[] {"applying batches", "catalog unreachable"});
    String line = new String(out.getEncoder().encode(event), StandardCharsets.UTF_8);

    // then the line is one JSON object with the message filled in, and no unfilled template
    assertThat(line).endsWith("\n").doesNotContain("{} failing");
    JsonNode json = new ObjectMapper().readTree(line);
    assertThat(json.get("formattedMessage").asText()).isEqualTo("applying batches failing, retrying with backoff: catalog unreachable");
    assertThat(json.get("level").asText()).isEqualTo("WARN");
    context.stop();
  }
}
