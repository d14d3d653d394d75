package dev.floe.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.OutputStreamAppender;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.logging.FloeLogConfigurator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * A canary secret handed to the worker through {@code ${env:}} in {@code catalog.uri} shows up in
 * no log line (text or JSON, Floe's or Iceberg's), in no metric and in no output of
 * {@code floe validate}, while the worker waits out a catalog it cannot reach.
 */
class CanarySecretTest {
  static final String CANARY = "canary-7f3a9c";
  @TempDir Path dir;

  @AfterEach
  void restoreTestLogging() throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    new ContextInitializer(context).autoConfig();
  }

  @ParameterizedTest(name = "{0} logs, {1} catalog")
  @CsvSource({
      "text, rest, 'http://lakeuser:${env:FLOE_CANARY}@127.0.0.1:{restPort}/'",
      "json, rest, 'http://lakeuser:${env:FLOE_CANARY}@127.0.0.1:{restPort}/'",
      "text, jdbc, 'jdbc:postgresql://127.0.0.1:1/catalog?user=lake&password=${env:FLOE_CANARY}'",
      "json, jdbc, 'jdbc:postgresql://127.0.0.1:1/catalog?user=lake&password=${env:FLOE_CANARY}'"})
  void theCanaryAppearsInNoLogLineMetricOrValidateOutput(String format, String catalog, String uri) throws Exception {
    // given the worker's own logging config, writing to a buffer, and a sink whose catalog uri carries the canary
    ByteArrayOutputStream logs = useWorkerLogging(format.equals("json"));
    // a REST catalog that answers 503, which Iceberg's client retries (and logs) before it gives up
    HttpServer rest = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    rest.createContext("/", ex -> {
      ex.sendResponseHeaders(503, -1);
      ex.close();
    });
    rest.start();
    uri = uri.replace("{restPort}", String.valueOf(rest.getAddress().getPort()));
    Path config = dir.resolve("sink.yaml");
    Files.writeString(config, """
        source: {bootstrapServers: "127.0.0.1:1", topics: [pg.public.orders], groupId: floe-canary}
        table:
          name: analytics.orders
          catalog: {type: %s, uri: "%s", warehouse: "%s", properties: {rest.client.max-retries: "2"}}
        deadLetter: {topic: floe.dlq.orders}
        """.formatted(catalog, uri, dir.resolve("warehouse")));
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }

    // when the worker starts, and retries the unreachable catalog, and /metrics is scraped meanwhile
    RunCommand run = new RunCommand();
    run.env = Map.of("FLOE_CANARY", CANARY)::get;
    AtomicReference<Integer> exit = new AtomicReference<>();
    Thread worker = new Thread(() -> exit.set(new CommandLine(run).execute(
        "--config", config.toString(), "--port", String.valueOf(port), "--log-format", format)), "canary-worker");
    worker.start();
    String metrics;
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> text(logs).contains("catalog failing, retrying with backoff"));
      metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } finally {
      worker.interrupt(); // ends the catalog wait
      worker.join(30_000);
      rest.stop(0);
    }
    // and a library logs the resolved uri in its message and in an exception's cause, as Iceberg's
    // REST client did in the reported leak (this Iceberg's 503 path no longer prints it)
    String resolved = new SecretResolver(run.env).resolve("table.catalog.uri", uri);
    LoggerFactory.getLogger("org.apache.iceberg.rest.HTTPClient").warn("Retrying request to {}", resolved,
        new IllegalStateException("request failed", new java.io.IOException("GET " + resolved + " refused")));
    String validate = validateOutput(config);

    // then the canary is nowhere, though the outage was logged, and the library's line keeps the user
    assertThat(text(logs)).contains("Retrying request to", "refused", user(uri)).doesNotContain(CANARY);
    if (format.equals("json")) {
      assertThat(text(logs)).contains("\"formattedMessage\"");
    }
    assertThat(metrics).contains("floe_").doesNotContain(CANARY);
    assertThat(validate).contains("valid").doesNotContain(CANARY);
  }

  private static String user(String uri) {
    return uri.startsWith("http") ? "lakeuser:****@" : "user=lake&password=****";
  }

  /** Configures the process's logging as the worker does, its appender writing to a buffer. */
  private static ByteArrayOutputStream useWorkerLogging(boolean json) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    OutputStreamAppender<ILoggingEvent> out = FloeLogConfigurator.configure(context, json, null);
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    out.setOutputStream(buffer);
    return buffer;
  }

  private static String validateOutput(Path config) {
    PrintStream was = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      new CommandLine(new ValidateCommand()).execute("-c", config.toString());
    } finally {
      System.setOut(was);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static synchronized String text(ByteArrayOutputStream logs) {
    return logs.toString(StandardCharsets.UTF_8);
  }
}
