package dev.floe.worker.runtime;

import dev.floe.worker.config.ConfigException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects to the catalog at start-up, waiting out an outage (a REST catalog that is restarting,
 * a database failing over) with backoff instead of exiting: a worker started during an outage
 * begins once the catalog is back. A wrong config, or a permanent refusal (see
 * {@link FailureClassifier}), fails at once.
 */
public final class CatalogConnector {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogConnector.class);
  private static final Duration FIRST = Duration.ofSeconds(1);
  private static final Duration MAX = Duration.ofSeconds(30);

  private CatalogConnector() {}

  /** @return the catalog, or null when {@code stopping} turned true before it could be reached */
  public static Catalog connect(Supplier<Catalog> connect, BooleanSupplier stopping) throws InterruptedException {
    return connect(connect, stopping, () -> {});
  }

  /**
   * As {@link #connect(Supplier, BooleanSupplier, Runnable)}, on a thread of its own: a worker
   * starting up creates its Kafka clients meanwhile, instead of after the catalog (both load
   * thousands of classes, and a machine has more than one core).
   *
   * @return the catalog once connected; null when stopped first; completed exceptionally by a
   *     refusal or a wrong config, as {@code connect} throws them
   */
  public static CompletableFuture<Catalog> connectInBackground(Supplier<Catalog> connect, BooleanSupplier stopping, Runnable failed) {
    CompletableFuture<Catalog> catalog = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        catalog.complete(connect(connect, stopping, failed));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        catalog.completeExceptionally(e);
      } catch (RuntimeException | Error e) {
        catalog.completeExceptionally(e);
      }
    }, "floe-catalog-connect");
    t.setDaemon(true);
    t.start();
    return catalog;
  }

  /**
   * Waits for {@link #connectInBackground}'s catalog: null when stopped first; what it failed with
   * is thrown as it was thrown.
   */
  public static Catalog await(CompletableFuture<Catalog> catalog) throws InterruptedException {
    try {
      return catalog.get();
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException("connecting to the catalog failed", e.getCause());
    }
  }

  /** As {@link #connect(Supplier, BooleanSupplier)}, telling {@code failed} of each attempt that failed and will be retried. */
  public static Catalog connect(Supplier<Catalog> connect, BooleanSupplier stopping, Runnable failed) throws InterruptedException {
    OutageLog outage = new OutageLog(LOG, "catalog");
    Duration backoff = FIRST;
    while (!stopping.getAsBoolean()) {
      try {
        Catalog catalog = connect.get();
        outage.succeeded();
        return catalog;
      } catch (ConfigException | IllegalArgumentException e) {
        throw e;
      } catch (RuntimeException e) {
        if (FailureClassifier.isPermanent(e)) {
          LOG.error("stopping: the catalog refuses us, and retrying will not change that: {}", FailureClassifier.describe(e));
          throw new PermanentFailureException("the catalog cannot be used: " + FailureClassifier.describe(e), e);
        }
        outage.failed(e);
        failed.run();
        Thread.sleep(backoff.toMillis());
        backoff = backoff.multipliedBy(2).compareTo(MAX) > 0 ? MAX : backoff.multipliedBy(2);
      }
    }
    return null;
  }
}
