package dev.floe.operator.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.marcnuri.helm.Helm;
import dev.floe.operator.dependent.WorkerPods;
import dev.floe.operator.model.CdcSink;
import dev.floe.operator.reconcile.SpecProblems;
import dev.floe.worker.cli.Floe;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;

/**
 * What users apply is valid: the Helm chart renders Kubernetes objects that parse strictly into
 * the Kubernetes model (an unknown or misspelt field fails), its RBAC covers what the operator
 * does and no more, the example CdcSinks are valid sinks, and the worker pods' args fit the image.
 */
class DeployManifestsTest {
  static final Path CHART = Path.of("../deploy/helm/floe-operator");
  static final Path EXAMPLES = Path.of("../deploy/examples");
  /** The CdcSink model has no catch-all: plain Jackson fails on an unknown field. */
  static final ObjectMapper SINKS = new ObjectMapper(new YAMLFactory()).configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
  /** Jackson with the Kubernetes model's catch-all for unknown fields switched off. */
  static final ObjectMapper STRICT = new ObjectMapper(new YAMLFactory())
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
      .setAnnotationIntrospector(new JacksonAnnotationIntrospector() {
        @Override
        public Boolean hasAnySetter(Annotated a) {
          Boolean any = super.hasAnySetter(a);
          return any == null ? null : Boolean.FALSE;
        }
      });
  static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
      "Deployment", Deployment.class, "ServiceAccount", ServiceAccount.class,
      "ClusterRole", ClusterRole.class, "ClusterRoleBinding", ClusterRoleBinding.class,
      "Role", Role.class, "RoleBinding", RoleBinding.class,
      "Service", Service.class, "PodDisruptionBudget", PodDisruptionBudget.class, "ConfigMap", ConfigMap.class);
  /** The Prometheus Operator's kinds: no Java model here, read as generic resources. */
  static final List<String> MONITORING_KINDS = List.of("ServiceMonitor", "PrometheusRule");

  @Test
  void theChartShipsTheGeneratedCrd() throws IOException {
    Path chartCrd = CHART.resolve("crds/cdcsinks.floe.dev-v1.yml");
    Path generated = Path.of("../crds/cdcsinks.floe.dev-v1.yml");
    if (Boolean.getBoolean("floe.updateCrds")) {
      Files.copy(generated, chartCrd, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    assertThat(Files.readString(chartCrd)).as("run with -Dfloe.updateCrds=true").isEqualTo(Files.readString(generated));
  }

  @Test
  void theChartLintsClean() {
    var lint = new Helm(CHART).lint().strict().call();
    assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
  }

  @Test
  void watchingEveryNamespaceRendersValidObjectsWithClusterWideLeastPrivilege() throws IOException {
    List<HasMetadata> objects = render(Map.of());

    Deployment operator = only(objects, Deployment.class);
    ServiceAccount account = only(objects, ServiceAccount.class);
    assertThat(operator.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo(account.getMetadata().getName());
    assertThat(operator.getSpec().getTemplate().getSpec().getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(env(operator, "FLOE_LEADER_ELECTION_NAMESPACE")).isEqualTo("floe-system");
    assertCoversTheOperator(only(objects, ClusterRole.class).getRules());
    assertThat(only(objects, ClusterRoleBinding.class).getSubjects()).singleElement()
        .satisfies(s -> assertThat(s.getName()).isEqualTo(account.getMetadata().getName()));
  }

  @Test
  void watchingListedNamespacesGrantsRightsOnlyThere() throws IOException {
    List<HasMetadata> objects = render(Map.of("watchNamespaces[0]", "analytics", "watchNamespaces[1]", "finance"));

    assertThat(objects).noneMatch(o -> o instanceof ClusterRole || o instanceof ClusterRoleBinding);
    List<Role> sinkRoles = objects.stream().filter(o -> o instanceof Role && !o.getMetadata().getName().endsWith("leader-election"))
        .map(Role.class::cast).toList();
    assertThat(sinkRoles).extracting(r -> r.getMetadata().getNamespace()).containsExactlyInAnyOrder("analytics", "finance");
    sinkRoles.forEach(r -> assertCoversTheOperator(r.getRules()));
    assertThat(env(only(objects, Deployment.class), "FLOE_WATCH_NAMESPACES")).isEqualTo("analytics,finance");
  }

  @Test
  void aNamespacedInstallCanAlsoGrantNoSecretsAtAll() throws IOException {
    List<HasMetadata> objects = render(Map.of("watchNamespaces[0]", "analytics", "rbac.readSecrets", "false"));

    List<Role> sinkRoles = objects.stream().filter(o -> o instanceof Role).map(Role.class::cast).toList();
    assertThat(sinkRoles).isNotEmpty().allSatisfy(r -> assertThat(r.getRules()).noneMatch(rule -> rule.getResources().contains("secrets")));
    assertThat(objects).noneMatch(o -> o instanceof ClusterRole || o instanceof ClusterRoleBinding);
    assertThat(env(only(objects, Deployment.class), "FLOE_WATCH_NAMESPACES")).isEqualTo("analytics");
  }

  @Test
  void theStrictParsersRejectAMisspeltField() {
    String deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replica: 2}\n";
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> STRICT.readValue(deployment, Deployment.class))
        .hasMessageContaining("replica");
    String sink = "apiVersion: floe.dev/v1alpha1\nkind: CdcSink\nmetadata: {name: x}\nspec: {source: {topic: [a]}}\n";
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> SINKS.readValue(sink, CdcSink.class)).hasMessageContaining("topic");
  }

  @Test
  void theExampleSinksAreValidCdcSinks() throws IOException {
    List<Path> examples;
    try (Stream<Path> files = Files.list(EXAMPLES)) {
      examples = files.filter(f -> f.toString().endsWith(".yaml") && read(f).contains("kind: CdcSink")).sorted().toList();
    }
    assertThat(examples).isNotEmpty();
    for (Path example : examples) {
      CdcSink sink = SINKS.readValue(example.toFile(), CdcSink.class);
      assertThat(SpecProblems.of(sink.getSpec())).as(example.toString()).isEmpty();
      assertThat(sink.getMetadata().getNamespace()).isNotBlank();
    }
  }

  @Test
  void theGitOpsKustomizationNamesFilesThatExist() throws IOException {
    Path dir = Path.of("../deploy/gitops");
    JsonNode k = new YAMLMapper().readTree(dir.resolve("kustomization.yaml").toFile());
    for (JsonNode r : k.get("resources")) {
      assertThat(dir.resolve(r.asText())).exists();
    }
  }

  @Test
  void workerPodsPassOnlyArgumentsToTheImagesFloeEntrypoint() throws IOException {
    // the image runs java with the main class set in the worker's Jib profile; pods add only args
    String pom = Files.readString(Path.of("../worker/pom.xml"));
    assertThat(pom).contains("<mainClass>" + Floe.class.getName() + "</mainClass>").doesNotContain("<entrypoint>");
    List<String> subcommands = Arrays.stream(Floe.class.getAnnotation(Command.class).subcommands())
        .map(c -> c.getAnnotation(Command.class).name()).toList();
    assertThat(subcommands).contains(WorkerPods.args("run").get(0), WorkerPods.args("compact").get(0));
  }

  // ---- helpers

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static List<HasMetadata> render(Map<String, String> values) throws IOException {
    var template = new Helm(CHART).template().withName("floe").withNamespace("floe-system");
    values.forEach(template::set);
    List<HasMetadata> out = new ArrayList<>();
    for (String doc : template.call().split("(?m)^---\\s*$")) {
      JsonNode node = new YAMLMapper().readTree(doc);
      if (node == null || node.isEmpty() || node.isMissingNode()) {
        continue;
      }
      if (MONITORING_KINDS.contains(node.get("kind").asText())) {
        out.add(new ObjectMapper().treeToValue(node, GenericKubernetesResource.class)); // no schema to be strict with
        continue;
      }
      Class<? extends HasMetadata> type = KINDS.get(node.get("kind").asText());
      assertThat(type).as("a kind the chart should render: " + node.get("kind")).isNotNull();
      out.add(STRICT.treeToValue(node, type));
    }
    return out;
  }

  static <T> T only(List<HasMetadata> objects, Class<T> type) {
    List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).hasSize(1);
    return found.get(0);
  }

  private static String env(Deployment d, String name) {
    return d.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
        .filter(e -> e.getName().equals(name)).findFirst().orElseThrow().getValue();
  }

  /** Every verb the operator uses is granted, and nothing beyond reading on Secrets, Jobs and Pods. */
  private static void assertCoversTheOperator(List<PolicyRule> rules) {
    assertGranted(rules, "floe.dev", "cdcsinks", "get", "list", "watch", "patch");
    assertGranted(rules, "floe.dev", "cdcsinks/status", "patch");
    for (String[] dependent : new String[][] {{"", "configmaps"}, {"", "services"}, {"apps", "deployments"}, {"batch", "cronjobs"}}) {
      assertGranted(rules, dependent[0], dependent[1], "get", "list", "watch", "create", "update", "patch", "delete");
    }
    assertGranted(rules, "", "events", "create");
    assertGranted(rules, "", "secrets", "get");
    for (PolicyRule r : rules) {
      if (r.getResources().contains("secrets") || r.getResources().contains("pods") || r.getResources().contains("jobs")) {
        assertThat(r.getVerbs()).isSubsetOf("get", "list");
      }
      assertThat(r.getVerbs()).doesNotContain("*");
      assertThat(r.getResources()).doesNotContain("*");
    }
  }

  private static void assertGranted(List<PolicyRule> rules, String group, String resource, String... verbs) {
    assertThat(rules).as(group + "/" + resource + " " + Arrays.toString(verbs)).anyMatch(r ->
        r.getApiGroups().contains(group) && r.getResources().contains(resource) && r.getVerbs().containsAll(List.of(verbs)));
  }
}
