package dev.floe.worker.cli;

import dev.floe.worker.catalog.CatalogLoader;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.engine.SinkEngine;
import dev.floe.worker.runtime.HealthServer;
import dev.floe.worker.runtime.SinkRunner;
import dev.floe.worker.runtime.WorkerMetrics;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

  @Override
  public Integer call() throws Exception {
    SinkSpec spec = config.load();
    SecretResolver secrets = SecretResolver.fromEnvironment();
    CatalogSpec catalog = spec.table().catalog() == null ? CatalogSpec.local("floe-warehouse") : spec.table().catalog();
    SinkEngine engine = new SinkEngine(spec, CatalogLoader.load("floe", catalog, secrets));
    WorkerMetrics metrics = new WorkerMetrics(spec.sinkId());
    SinkRunner runner = new SinkRunner(spec, engine, metrics, secrets);
    CountDownLatch done = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      LOG.info("SIGTERM: stopping, committing the open batch (grace {}s)", graceSeconds);
      runner.stop();
      try {
        if (!done.await(graceSeconds, TimeUnit.SECONDS)) {
          LOG.warn("grace period over: the open batch is abandoned; it is re-read from the table's offsets on restart");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "floe-shutdown"));
    try (HealthServer http = new HealthServer(port, runner::isRunning, runner::isReady, metrics::scrape)) {
      LOG.info("sink {}: {} -> {}; health and metrics on :{}", spec.sinkId(), spec.source().topics(), spec.table().name(), http.port());
      runner.run();
      return 0;
    } finally {
      runner.close();
      done.countDown();
    }
  }
}
