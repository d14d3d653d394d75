package dev.floe.operator.deploy;

import static dev.floe.operator.deploy.DeployManifestsTest.only;
import static dev.floe.operator.deploy.DeployManifestsTest.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.operator.OperatorMetrics;
import dev.floe.worker.engine.BatchResult;
import dev.floe.worker.runtime.WorkerMetrics;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The chart runs the operator observably: probes, a metrics port and Service, a disruption budget,
 * replicas that leader election keeps safe, and optional ServiceMonitors, alerts and a Grafana
 * dashboard whose every query names a metric that a worker or the operator really exports.
 */
class ChartMonitoringTest {
  static final Path DASHBOARD = DeployManifestsTest.CHART.resolve("dashboards/floe.json");
  /** Floe's metric names in a PromQL expression (functions, labels and keywords never start so). */
  static final Pattern METRIC = Pattern.compile("\\b(floe_[a-z0-9_]+)\\b");

  @Test
  void theOperatorHasProbesAMetricsPortAServiceAndADisruptionBudget() throws IOException {
    List<HasMetadata> objects = render(Map.of());
    Deployment deployment = only(objects, Deployment.class);
    Container operator = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(operator.getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getName()).isEqualTo("http");
      assertThat(p.getContainerPort()).isEqualTo(8080);
    });
    assertThat(operator.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(operator.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(operator.getEnv()).anyMatch(e -> e.getName().equals("FLOE_HTTP_PORT") && e.getValue().equals("8080"));

    Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
    assertThat(podLabels).containsAllEntriesOf(only(objects, Service.class).getSpec().getSelector());
    PodDisruptionBudget pdb = only(objects, PodDisruptionBudget.class);
    assertThat(podLabels).containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels());
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);

    // values.yaml says two replicas with leader election: so it renders
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(operator.getEnv()).anyMatch(e -> e.getName().equals("FLOE_LEADER_ELECTION_NAMESPACE") && e.getValue().equals("floe-system"));
    assertThat(objects).noneMatch(o -> o instanceof GenericKubernetesResource || o instanceof ConfigMap);
  }

  @Test
  void severalReplicasWithoutLeaderElectionAreRefused() throws IOException {
    assertThatThrownBy(() -> render(Map.of("leaderElection", "false"))).hasMessageContaining("needs leaderElection");
    Deployment single = only(render(Map.of("leaderElection", "false", "replicas", "1")), Deployment.class);
    assertThat(single.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .anyMatch(e -> e.getName().equals("FLOE_LEADER_ELECTION_NAMESPACE") && e.getValue().isEmpty());
  }

  @Test
  void serviceMonitorsFindTheOperatorAndEveryWorkerService() throws IOException {
    List<GenericKubernetesResource> monitors = monitoring(render(Map.of("serviceMonitor.enabled", "true")), "ServiceMonitor");
    assertThat(monitors).hasSize(2);
    GenericKubernetesResource workers = monitors.stream().filter(m -> m.getMetadata().getName().endsWith("-workers")).findFirst().orElseThrow();
    Map<String, Object> selector = workers.get("spec", "selector", "matchLabels");
    // the labels the operator puts on each sink's metrics Service (SinkResources.labels)
    assertThat(selector).containsEntry("app.kubernetes.io/managed-by", "floe-operator").containsEntry("app.kubernetes.io/component", "worker");
    assertThat((Object) workers.get("spec", "namespaceSelector", "any")).isEqualTo(true);
  }

  @Test
  void theAlertsCoverFreshnessStopsDeadLettersLagGrowthAndCommitFailuresOnExportedMetrics() throws IOException {
    GenericKubernetesResource rule = monitoring(render(Map.of("prometheusRule.enabled", "true")), "PrometheusRule").get(0);
    List<Map<String, Object>> groups = rule.get("spec", "groups");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> rules = (List<Map<String, Object>>) groups.get(0).get("rules");
    Map<String, Object> stale = rules.get(0);
    assertThat((String) ((Map<?, ?>) stale.get("annotations")).get("summary")).contains("{{ $labels.table }}"); // Prometheus' templates survive Helm's
    assertThat((String) stale.get("expr")).contains("> 600");
    assertThat(rules).extracting(r -> r.get("alert"))
        .contains("FloeTableStale", "FloeTableStopped", "FloeDeadLetters", "FloeLagGrowing", "FloeCommitFailures");
    Set<String> exported = exportedMetrics();
    for (Map<String, Object> r : rules) {
      List<String> used = metrics((String) r.get("expr"));
      assertThat(used).as(r.get("alert") + " queries a Floe metric").isNotEmpty();
      assertThat(exported).as(r.get("alert") + ": metrics a worker or the operator exports").containsAll(used);
      assertThat((String) ((Map<?, ?>) r.get("annotations")).get("summary")).isNotBlank().doesNotContain(".Values").doesNotContain("{{`");
    }
  }

  @Test
  void theDashboardQueriesOnlyMetricsAWorkerOrTheOperatorExports() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    Set<String> exported = exportedMetrics();
    List<String> titles = new ArrayList<>();
    for (JsonNode panel : dashboard.get("panels")) {
      titles.add(panel.get("title").asText());
      assertThat(panel.get("targets")).as(panel.get("title").asText()).isNotEmpty();
      for (JsonNode target : panel.get("targets")) {
        List<String> used = metrics(target.get("expr").asText());
        assertThat(used).as(panel.get("title") + ": " + target.get("expr")).isNotEmpty();
        assertThat(exported).as(panel.get("title") + ": metrics a worker or the operator exports").containsAll(used);
      }
    }
    assertThat(titles).contains("Throughput", "Lag per partition", "Freshness", "Commit latency", "Dead letters and failures", "Replicas");

    ConfigMap shipped = only(render(Map.of("dashboard.enabled", "true")), ConfigMap.class);
    assertThat(shipped.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
    assertThat(new ObjectMapper().readTree(shipped.getData().get("floe.json"))).isEqualTo(dashboard);
  }

  // ---- helpers

  private static List<GenericKubernetesResource> monitoring(List<HasMetadata> objects, String kind) {
    return objects.stream().filter(o -> o instanceof GenericKubernetesResource && kind.equals(o.getKind()))
        .map(GenericKubernetesResource.class::cast).toList();
  }

  private static List<String> metrics(String expr) {
    List<String> out = new ArrayList<>();
    Matcher m = METRIC.matcher(expr);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /** What a worker and the operator really expose, scraped after every meter has been created. */
  static Set<String> exportedMetrics() {
    WorkerMetrics worker = new WorkerMetrics("floe-orders");
    worker.batchCommitted("analytics.orders", sampleBatch(), Duration.ofMillis(40));
    worker.commitFailed();
    worker.tableStopped("analytics.orders");
    worker.lag(new TopicPartition("pg.public.orders", 0), 5);
    OperatorMetrics operator = new OperatorMetrics();
    operator.lagRead(false);
    operator.scaled(0, 1);
    operator.replicas("analytics", "orders", 1, 1);
    operator.lag("analytics", "orders", 5);
    Set<String> names = new HashSet<>();
    for (String scrape : List.of(worker.scrape(), operator.scrape())) {
      scrape.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).forEach(l -> names.add(l.split("[{ ]", 2)[0]));
    }
    return names;
  }

  /** A committed batch, whatever fields BatchResult has by now: one of everything, empty collections. */
  private static BatchResult sampleBatch() {
    RecordComponent[] parts = BatchResult.class.getRecordComponents();
    Object[] values = new Object[parts.length];
    Class<?>[] types = new Class<?>[parts.length];
    for (int i = 0; i < parts.length; i++) {
      Class<?> t = parts[i].getType();
      types[i] = t;
      values[i] = t == int.class ? 1 : t == long.class || t == Long.class ? 1L : t == boolean.class ? false
          : t == List.class ? List.of() : t == Map.class ? Map.of() : t == Set.class ? Set.of() : null;
    }
    try {
      return BatchResult.class.getDeclaredConstructor(types).newInstance(values);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

}
