package dev.floe.operator;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;

/**
 * The Kubernetes API for tests: fabric8's mock API server in CRUD mode here, or the real cluster
 * that FLOE_TEST_KUBECONFIG points at (kind), with the CdcSink CRD from crds/ installed.
 */
public final class TestCluster implements AutoCloseable {
  public static final Path CRD = Path.of("../crds/cdcsinks.floe.dev-v1.yml");

  private final KubernetesMockServer server;
  private final KubernetesClient client;

  private TestCluster(KubernetesMockServer server, KubernetesClient client) {
    this.server = server;
    this.client = client;
  }

  public static TestCluster start() throws IOException {
    String kubeconfig = System.getenv("FLOE_TEST_KUBECONFIG");
    KubernetesMockServer server = null;
    KubernetesClient client;
    if (kubeconfig != null && !kubeconfig.isBlank()) {
      client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(Path.of(kubeconfig)))).build();
    } else {
      server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
      server.init();
      client = server.createClient();
    }
    try (InputStream crd = Files.newInputStream(CRD)) {
      // the CRD first, so that status is a subresource as on a real API server
      client.resource(client.apiextensions().v1().customResourceDefinitions().load(crd).item()).createOr(NonDeletingOperation::update);
    }
    return new TestCluster(server, client);
  }

  public KubernetesClient client() {
    return client;
  }

  /** Whether this is the mock server, which has no Deployment controller and no garbage collector. */
  public boolean mock() {
    return server != null;
  }

  @Override
  public void close() {
    client.close();
    if (server != null) {
      server.destroy();
    }
  }
}
