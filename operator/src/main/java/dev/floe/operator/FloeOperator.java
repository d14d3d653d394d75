package dev.floe.operator;

import dev.floe.operator.reconcile.CdcSinkReconciler;
import dev.floe.operator.scale.KafkaLagReader;
import dev.floe.worker.runtime.HealthServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * The operator process. Settings come from the environment (the Helm chart sets them):
 * FLOE_WATCH_NAMESPACES (comma-separated; empty watches all), FLOE_WORKER_IMAGE,
 * FLOE_LEADER_ELECTION_NAMESPACE (empty turns leader election off, for a single replica),
 * FLOE_HTTP_PORT (default 8080: {@code /healthz}, {@code /readyz}, Prometheus {@code /metrics}).
 */
public final class FloeOperator {
  private FloeOperator() {}

  public static void main(String[] args) throws IOException {
    KubernetesClient client = new KubernetesClientBuilder().build();
    OperatorMetrics metrics = new OperatorMetrics();
    AtomicReference<Operator> started = new AtomicReference<>();
    int port = Integer.parseInt(System.getenv().getOrDefault("FLOE_HTTP_PORT", "8080"));
    // up before the operator starts, so the probes see a JVM that is alive but not ready yet;
    // ready once started, also as a standby replica waiting for the lease (else a PDB blocks drains)
    HealthServer http = new HealthServer(port, () -> true,
        () -> started.get() != null && started.get().getRuntimeInfo().isStarted(), metrics::scrape);
    Operator operator = start(client, Settings.fromEnvironment(), metrics);
    started.set(operator);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      operator.stop();
      http.close();
    }, "floe-operator-stop"));
  }

  /** Registers the CdcSink controller and starts it; with leader election, reconciling waits for the lease. */
  public static Operator start(KubernetesClient client, Settings settings) {
    return start(client, settings, new OperatorMetrics());
  }

  /** As {@link #start(KubernetesClient, Settings)}, counting into the given metrics. */
  public static Operator start(KubernetesClient client, Settings settings, OperatorMetrics metrics) {
    Operator operator = new Operator(o -> {
      o.withKubernetesClient(client);
      o.withMetrics(metrics.reconcileMetrics());
      if (settings.leaseNamespace() != null) {
        o.withLeaderElectionConfiguration(new LeaderElectionConfiguration("floe-operator", settings.leaseNamespace()));
      }
      if (!settings.serverSideApply()) {
        o.withUseSSAToPatchPrimaryResource(false).withSSABasedCreateUpdateMatchForDependentResources(false);
      }
    });
    CdcSinkReconciler reconciler = new CdcSinkReconciler(new KafkaLagReader(Duration.ofSeconds(10)), Clock.systemUTC(), settings.workerImage(), metrics);
    operator.register(reconciler, c -> {
      if (!settings.namespaces().isEmpty()) {
        c.settingNamespaces(settings.namespaces());
      }
    });
    operator.start();
    return operator;
  }

  /** What the operator is told by its Deployment. */
  public record Settings(Set<String> namespaces, String workerImage, String leaseNamespace, boolean serverSideApply) {
    public static final String DEFAULT_WORKER_IMAGE = "ghcr.io/floe-dev/floe-worker:0.1.0";

    static Settings fromEnvironment() {
      String ns = System.getenv().getOrDefault("FLOE_WATCH_NAMESPACES", "");
      Set<String> namespaces = Arrays.stream(ns.split(",")).map(String::strip).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
      String image = System.getenv().getOrDefault("FLOE_WORKER_IMAGE", DEFAULT_WORKER_IMAGE);
      String lease = System.getenv("FLOE_LEADER_ELECTION_NAMESPACE");
      return new Settings(namespaces, image, lease == null || lease.isBlank() ? null : lease, true);
    }
  }
}
