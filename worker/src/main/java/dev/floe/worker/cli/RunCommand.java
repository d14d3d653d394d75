package dev.floe.worker.cli;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.LiteralSecrets;
import dev.floe.worker.decode.ChangeDecoders;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.engine.TableRouter;
import dev.floe.worker.runtime.CatalogConnector;
import dev.floe.worker.runtime.HealthServer;
import dev.floe.worker.runtime.JvmMeters;
import dev.floe.worker.runtime.SinkRunner;
import dev.floe.worker.runtime.StartupTimeline;
import dev.floe.worker.runtime.WorkerMetrics;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import sun.misc.Signal;
import sun.misc.SignalHandler;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Runs one sink until SIGTERM: commits the open batch (within the grace period) and exits 0. */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Run a sink: Kafka in, Iceberg out, exactly once.")
final class RunCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

  @Mixin ConfigOption config;

  @Option(names = "--port", defaultValue = "8080", description = "Port of /healthz, /readyz and /metrics; 0 picks one (default ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--grace", defaultValue = "25", description = "Seconds to finish the open batch after SIGTERM (default ${DEFAULT-VALUE}).")
  int graceSeconds;

  @Option(names = "--log-format", defaultValue = "text", description = "text or json.")
  String logFormat;

  @Option(names = "--instance-id", defaultValue = "${env:FLOE_INSTANCE_ID:-}",
      description = "This worker's stable identity in the consumer group (static membership; the operator passes the pod name"
          + " as FLOE_INSTANCE_ID): restarted under it after a crash, the worker takes its partitions back at once. Give each"
          + " worker its own. Default: the FLOE_INSTANCE_ID environment variable, else a dynamic member.")
  String instanceId;

  /** Where {@code ${env:NAME}} is looked up; tests hand in their own. */
  Function<String, String> env = System::getenv;

  @Override
  public Integer call() throws Exception {
    StartupTimeline startup = StartupTimeline.process();
    startup.mark("command line");
    SinkSpec spec = config.load();
    startup.mark("config");
    LiteralSecrets.of(spec).forEach(w -> LOG.warn("{}", w));
    SecretResolver secrets = new SecretResolver(env);
    CatalogSpec catalog = ConfigOption.catalog(spec);
    WorkerMetrics metrics = new WorkerMetrics(spec.sinkId());
    AtomicReference<SinkRunner> running = new AtomicReference<>();
    AtomicBoolean stopping = new AtomicBoolean();
    // Until the runner exists, SIGTERM only ends the wait for the catalog.
    SignalHandler early = signal -> stopping.set(true);
    Signal.handle(new Signal("TERM"), early);
    Signal.handle(new Signal("INT"), early);
    // The catalog connects while the health server and the Kafka clients start: each loads thousands of classes.
    CompletableFuture<Catalog> connecting = CatalogConnector.connectInBackground(() -> CatalogLoader.load("floe", catalog, secrets),
        stopping::get, metrics::catalogFailed);
    connecting.thenRun(() -> startup.mark("catalog connected"));
    try (JvmMeters jvm = JvmMeters.bindTo(metrics.registry());
        HealthServer http = new HealthServer(port, () -> running.get() == null || running.get().isRunning(),
        () -> running.get() != null && running.get().isReady(), metrics::scrape)) {
      LOG.info("sink {}: {} -> {}; health and metrics on :{}", spec.sinkId(),
          spec.source().topicPattern() != null ? spec.source().topicPattern() : spec.source().topics(), spec.table().name(), http.port());
      startup.mark("health server");
      SinkRunner runner;
      Catalog icebergCatalog;
      try {
        // The engines ask for the catalog only on the applying thread, after the wait below.
        runner = new SinkRunner(spec, TableRouter.of(spec, connecting::join, ChangeDecoders.of(spec.source(), secrets)), metrics, secrets,
            instanceId == null || instanceId.isBlank() ? null : instanceId);
      } catch (RuntimeException e) {
        stopping.set(true); // ends the connecting thread's retries
        throw e;
      }
      startup.mark("kafka clients");
      try {
        icebergCatalog = CatalogConnector.await(connecting); // the worker joins its group only once the catalog answers
      } catch (RuntimeException | InterruptedException e) {
        stopping.set(true);
        runner.close();
        throw e;
      }
      if (icebergCatalog == null) {
        runner.close();
        LOG.info("stopped before the catalog could be reached");
        return 0;
      }
      startup.mark("catalog");
      running.set(runner);
      return runUntilStopped(runner, stopping);
    }
  }

  private int runUntilStopped(SinkRunner runner, AtomicBoolean stopRequested) {
    CountDownLatch done = new CountDownLatch(1);
    // Handle SIGTERM ourselves rather than in a shutdown hook, so a clean stop can exit 0.
    SignalHandler stop = signal -> {
      LOG.info("SIG{}: stopping, committing the open batch (grace {}s)", signal.getName(), graceSeconds);
      runner.stop();
      Thread watchdog = new Thread(() -> {
        try {
          if (!done.await(graceSeconds, TimeUnit.SECONDS)) {
            // Nothing is lost: the batch is re-read from the table's offsets on restart.
            LOG.warn("grace period over: abandoning the open batch");
            Runtime.getRuntime().halt(0);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "floe-grace");
      watchdog.setDaemon(true);
      watchdog.start();
    };
    Signal.handle(new Signal("TERM"), stop);
    Signal.handle(new Signal("INT"), stop);
    if (stopRequested.get()) { // SIGTERM arrived before this handler was in place
      runner.stop();
    }
    try {
      runner.run();
      return 0;
    } finally {
      runner.close();
      done.countDown();
    }
  }
}
