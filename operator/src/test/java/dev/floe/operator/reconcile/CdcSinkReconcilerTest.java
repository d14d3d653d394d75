package dev.floe.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.floe.operator.FloeOperator;
import dev.floe.operator.TestCluster;
import dev.floe.operator.dependent.SinkResources;
import dev.floe.operator.model.CdcSink;
import dev.floe.operator.model.CdcSinkSpec;
import dev.floe.operator.model.ScalingSpec;
import dev.floe.operator.model.WorkerPodSpec;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CatalogType;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.SinkConfigLoader;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.quickstart.EmbeddedKafka;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.Operator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator end to end against the Kubernetes API (fabric8's mock server in CRUD mode, or a
 * real cluster through FLOE_TEST_KUBECONFIG) and a real Kafka broker for the lag.
 */
class CdcSinkReconcilerTest {
  static final String NS = "analytics";
  static final AtomicInteger SINKS = new AtomicInteger();
  static TestCluster cluster;
  static KubernetesClient client;
  static EmbeddedKafka kafka;
  static Operator operator;
  static final dev.floe.operator.OperatorMetrics metrics = new dev.floe.operator.OperatorMetrics();

  @BeforeAll
  static void start() throws Exception {
    cluster = TestCluster.start();
    client = cluster.client();
    kafka = new EmbeddedKafka();
    operator = FloeOperator.start(client, new FloeOperator.Settings(Set.of(), "floe-worker:test", null, !cluster.mock()), metrics);
  }

  @AfterAll
  static void stop() throws Exception {
    operator.stop();
    kafka.close();
    cluster.close();
  }

  @Test
  void aNewSinkGetsItsWorkerConfigDeploymentServiceAndCompactionScheduleOwnedByIt() throws Exception {
    CdcSink sink = create(sink("orders").compaction(new CompactionSpec("0 3 * * *", null, null, null, null, null, null, null, null, null, null)));

    ConfigMap config = await().until(() -> get(ConfigMap.class, sink.getMetadata().getName() + "-worker-config"), o -> o.isPresent()).get();
    assertThat(SinkConfigLoader.parse(config.getData().get(SinkResources.CONFIG_FILE))).isEqualTo(sink.getSpec().sinkSpec());

    Deployment deployment = await().until(() -> get(Deployment.class, sink.getMetadata().getName() + "-worker"), Optional::isPresent).get();
    assertThat(deployment.getSpec().getReplicas()).as("an idle new sink runs no workers").isZero();
    Container worker = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(worker.getImage()).isEqualTo("floe-worker:test");
    assertThat(worker.getArgs()).containsExactly("run", "--config", "/etc/floe/config/sink.yaml", "--port", "8080", "--log-format", "json");
    assertThat(worker.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(worker.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(worker.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(worker.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(deployment.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken())
        .as("the worker never calls the Kubernetes API, so it gets no token").isFalse();
    assertThat(worker.getVolumeMounts()).anyMatch(m -> m.getMountPath().equals("/etc/floe/secrets/lake-credentials") && m.getReadOnly());
    assertThat(deployment.getSpec().getTemplate().getSpec().getVolumes())
        .anyMatch(v -> v.getSecret() != null && v.getSecret().getSecretName().equals("lake-credentials"));

    Service metrics = await().until(() -> get(Service.class, sink.getMetadata().getName() + "-metrics"), Optional::isPresent).get();
    assertThat(metrics.getSpec().getSelector()).isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
    CronJob compaction = await().until(() -> get(CronJob.class, sink.getMetadata().getName() + "-compact"), Optional::isPresent).get();
    assertThat(compaction.getSpec().getSchedule()).isEqualTo("0 3 * * *");
    assertThat(compaction.getSpec().getConcurrencyPolicy()).isEqualTo("Forbid");
    assertThat(compaction.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .startsWith("compact", "--config", "/etc/floe/config/sink.yaml");

    // deleting the sink lets Kubernetes collect every dependent (and nothing touches the table)
    for (var owned : List.of(config, deployment, metrics, compaction)) {
      assertThat(owned.getMetadata().getOwnerReferences()).singleElement()
          .satisfies(ref -> assertOwnedBy(ref, sink));
    }
    await().untilAsserted(() -> assertThat(condition(sink, "Ready")).hasValueSatisfying(c -> {
      assertThat(c.getStatus()).isEqualTo("True");
      assertThat(c.getReason()).isEqualTo("ScaledToZero");
    }));
    assertThat(current(sink).getStatus().observedGeneration).isEqualTo(current(sink).getMetadata().getGeneration());
  }

  @Test
  void lagScalesTheWorkersUpAndAnIdleSinkBackToZero() throws Exception {
    CdcSink sink = create(sink("payments").scaling(new ScalingSpec(0, 8, 10L, 0L, "3s", "1s", "500ms")));
    String topic = sink.getSpec().source().topics().get(0);
    produce(topic, 25);

    await().atMost(Duration.ofSeconds(30)).until(() -> replicas(sink), n -> n == 3); // ceil(25 / 10), below 4 partitions
    CdcSink scaled = await().until(() -> current(sink), s -> Integer.valueOf(3).equals(s.getStatus().desiredReplicas)); // null until the first plan
    assertThat(scaled.getStatus().lag.total).isEqualTo(25);
    assertThat(scaled.getStatus().lag.partitions).hasSize(4);
    assertThat(events(sink, "ScaledUp")).anyMatch(e -> e.getMessage().contains("workers 0 -> 3"));
    assertThat(metrics.scrape()).as("the operator's /metrics")
        .containsPattern("floe_operator_scaling_decisions_total\\{direction=\"up\"} [1-9]")
        .containsPattern("floe_operator_lag_reads_total [1-9]")
        .containsPattern("operator_sdk_reconciliations_started_total[^\\n]* [1-9]");
    assertThat(condition(sink, "Ready")).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("False"));
    assertThat(scaled.getStatus().replicasSummary).isEqualTo("0/3"); // kubectl get's Replicas column: running/desired

    if (cluster.mock()) { // the mock server has no Deployment controller: play its part
      Deployment d = get(Deployment.class, sink.getMetadata().getName() + "-worker").orElseThrow();
      d.setStatus(new DeploymentStatusBuilder().withReplicas(3).withReadyReplicas(3).withUpdatedReplicas(3).withAvailableReplicas(3).build());
      client.resource(d).updateStatus();
    }
    await().untilAsserted(() -> assertThat(condition(sink, "Ready")).hasValueSatisfying(c -> {
      assertThat(c.getStatus()).isEqualTo("True");
      assertThat(c.getReason()).isEqualTo("WorkersReady");
    }));
    assertThat(current(sink).getStatus().replicasSummary).isEqualTo("3/3");

    commitToEnd(sink.getSpec().source().groupId(), topic); // the workers caught up
    await().atMost(Duration.ofSeconds(30)).until(() -> replicas(sink), n -> n == 0);
    assertThat(current(sink).getStatus().lag.total).isZero();
    assertThat(current(sink).getStatus().lastCommit).as("the workers' last commit, read with the lag (kubectl get -o wide)")
        .satisfies(c -> {
          assertThat(c.time).isEqualTo(STAMPED.toString());
          assertThat(c.snapshotId).isEqualTo(42L);
        });
    // first to one worker once the lag stayed low for the stabilization window, then to zero once idle
    assertThat(events(sink, "ScaledDown")).extracting(Event::getMessage)
        .anyMatch(m -> m.startsWith("workers 3 -> 1"))
        .anyMatch(m -> m.startsWith("workers 1 -> 0") && m.contains("idle"));
  }

  @Test
  void aSpecChangeRendersANewConfigAndRollsTheWorkers() {
    CdcSink sink = create(sink("refunds"));
    String before = await().until(() -> configHash(sink), h -> h != null);

    edit(sink, s -> withSpec(s, new Spec(s.getSpec()).commit(new CommitSpec("30s", null, null)).build()));

    await().untilAsserted(() -> assertThat(get(ConfigMap.class, sink.getMetadata().getName() + "-worker-config").orElseThrow()
        .getData().get(SinkResources.CONFIG_FILE)).contains("interval: \"30s\""));
    await().until(() -> configHash(sink), h -> h != null && !h.equals(before));
  }

  @Test
  void anInvalidSpecGetsAConditionAndAnEventThatSayWhatToFixAndTheLastGoodWorkersKeepRunning() {
    CdcSink sink = create(sink("invoices"));
    String good = await().until(() -> configHash(sink), h -> h != null);

    edit(sink, s -> withSpec(s, new Spec(s.getSpec()).tableName("invoices").build()));

    await().untilAsserted(() -> assertThat(condition(sink, "Ready")).hasValueSatisfying(c -> {
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("InvalidSpec");
      assertThat(c.getMessage()).contains("table.name", "must be namespace.table", "analytics.orders");
    }));
    assertThat(condition(sink, "Stalled")).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
    await().until(() -> events(sink, "InvalidSpec"), e -> !e.isEmpty());
    assertThat(events(sink, "InvalidSpec").get(0).getType()).isEqualTo("Warning");
    assertThat(configHash(sink)).as("the workers keep the last good config").isEqualTo(good);
  }

  @Test
  void aCanarySecretReachesNoConfigMapStatusOrEventAndALiteralOneIsRefusedNotRendered() {
    String canary = "canary-7f3a9c";
    // given a Kafka Secret holding the canary, and a sink that references its catalog password
    client.resource(new SecretBuilder().withNewMetadata().withName("kafka-canary").withNamespace(NS).endMetadata()
        .withStringData(Map.of("sasl.jaas.config", "PlainLoginModule required username=\"floe\" password=\"" + canary + "\";")).build())
        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
    Spec spec = sink("canaries").catalogUri("http://floeuser:${env:CATALOG_PASSWORD}@rest:8181/");
    spec.s = new CdcSinkSpec(new SourceSpec(spec.s.source().bootstrapServers(), spec.s.source().topics(), null,
        spec.s.source().groupId(), "kafka-canary", Map.of()), spec.s.table(), spec.s.commit(), spec.s.deadLetter(),
        spec.s.onError(), spec.s.compaction(), spec.s.scaling(), spec.s.worker());
    CdcSink sink = create(spec);
    String good = await().until(() -> configHash(sink), h -> h != null);
    await().until(() -> current(sink).getStatus() != null && current(sink).getStatus().lag != null && current(sink).getStatus().lag.readTime != null);

    // when the password is then written into the spec literally
    edit(sink, s -> withSpec(s, new Spec(s.getSpec()).catalogUri("http://floeuser:" + canary + "@rest:8181/").build()));

    // then the sink is refused with a condition and an Event that say what to do, and the canary is nowhere
    await().untilAsserted(() -> assertThat(condition(sink, "Ready")).hasValueSatisfying(c -> {
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("LiteralSecret");
      assertThat(c.getMessage()).contains("table.catalog.uri", "literal password", "${env:");
    }));
    assertThat(condition(sink, "Stalled")).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
    await().until(() -> events(sink, "LiteralSecret"), e -> !e.isEmpty());
    assertThat(configHash(sink)).as("the last good config stays; the literal is not rendered").isEqualTo(good);
    assertThat(get(ConfigMap.class, sink.getMetadata().getName() + "-worker-config").orElseThrow().getData().toString())
        .contains("${env:CATALOG_PASSWORD}").doesNotContain(canary);
    assertThat(Serialization.asJson(current(sink).getStatus())).doesNotContain(canary);
    assertThat(client.v1().events().inNamespace(NS).list().getItems()).extracting(Event::getMessage)
        .allSatisfy(m -> assertThat(m).doesNotContain(canary));

    // and an error that quotes a credential is masked in the status it lands in
    CdcSink failing = current(sink);
    new CdcSinkReconciler(null, java.time.Clock.systemUTC(), "floe-worker:test").updateErrorStatus(failing, null,
        new IllegalStateException("PUT http://floeuser:" + canary + "@rest:8181/ failed; jdbc:postgresql://db/c?password=" + canary));
    assertThat(Serialization.asJson(failing.getStatus())).contains("floeuser:****@").doesNotContain(canary);
  }

  // ---- builders and helpers

  private static Spec sink(String table) {
    int n = SINKS.incrementAndGet();
    String topic = "pg.public." + table + "." + n;
    try {
      kafka.createTopic(topic, 4);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return new Spec(new CdcSinkSpec(
        new SourceSpec(kafka.bootstrapServers(), List.of(topic), null, "floe-" + table + "-" + n, null, Map.of()),
        new TableSpec(new CatalogSpec(CatalogType.REST, "http://iceberg-rest:8181", null, null, "lake-credentials", Map.of()),
            "analytics." + table, List.of(), List.of(), 2, null, Map.of(), Map.of()),
        null, new DeadLetterSpec("floe.dlq." + table), null, null, null, WorkerPodSpec.DEFAULTS)).name(table + "-" + n);
  }

  /** A builder over the immutable spec records. */
  static final class Spec {
    CdcSinkSpec s;
    String name;

    Spec(CdcSinkSpec s) {
      this.s = s;
    }

    Spec name(String n) {
      name = n;
      return this;
    }

    Spec compaction(CompactionSpec c) {
      s = new CdcSinkSpec(s.source(), s.table(), s.commit(), s.deadLetter(), s.onError(), c, s.scaling(), s.worker());
      return this;
    }

    Spec scaling(ScalingSpec c) {
      s = new CdcSinkSpec(s.source(), s.table(), s.commit(), s.deadLetter(), s.onError(), s.compaction(), c, s.worker());
      return this;
    }

    Spec commit(CommitSpec c) {
      s = new CdcSinkSpec(s.source(), s.table(), c, s.deadLetter(), s.onError(), s.compaction(), s.scaling(), s.worker());
      return this;
    }

    Spec catalogUri(String uri) {
      TableSpec t = s.table();
      CatalogSpec c = t.catalog();
      TableSpec changed = new TableSpec(new CatalogSpec(c.type(), uri, c.warehouse(), c.ref(), c.secretRef(), c.properties()),
          t.name(), t.primaryKey(), t.partitionBy(), t.formatVersion(), t.writeMode(), t.mergeRules(), t.properties());
      s = new CdcSinkSpec(s.source(), changed, s.commit(), s.deadLetter(), s.onError(), s.compaction(), s.scaling(), s.worker());
      return this;
    }

    Spec tableName(String n) {
      TableSpec t = s.table();
      TableSpec renamed = new TableSpec(t.catalog(), n, t.primaryKey(), t.partitionBy(), t.formatVersion(), t.writeMode(), t.mergeRules(), t.properties());
      s = new CdcSinkSpec(s.source(), renamed, s.commit(), s.deadLetter(), s.onError(), s.compaction(), s.scaling(), s.worker());
      return this;
    }

    CdcSinkSpec build() {
      return s;
    }
  }

  private static CdcSink create(Spec spec) {
    CdcSink sink = new CdcSink();
    sink.setMetadata(new ObjectMetaBuilder().withName(spec.name).withNamespace(NS).build());
    sink.setSpec(spec.build());
    return client.resource(sink).create();
  }

  /** Edits the sink as kubectl would: a conflict with the operator's status update is retried on the newer version. */
  private static void edit(CdcSink sink, java.util.function.UnaryOperator<CdcSink> change) {
    await().ignoreException(io.fabric8.kubernetes.client.KubernetesClientException.class).until(() -> {
      client.resources(CdcSink.class).inNamespace(NS).withName(sink.getMetadata().getName()).edit(change);
      return true;
    });
  }

  private static CdcSink withSpec(CdcSink s, CdcSinkSpec spec) {
    s.setSpec(spec);
    return s;
  }

  private static CdcSink current(CdcSink sink) {
    return client.resources(CdcSink.class).inNamespace(NS).withName(sink.getMetadata().getName()).get();
  }

  private static Optional<Condition> condition(CdcSink sink, String type) {
    CdcSink now = current(sink);
    return now.getStatus() == null ? Optional.empty() : Conditions.find(now.getStatus().conditions, type);
  }

  private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> Optional<T> get(Class<T> type, String name) {
    return Optional.ofNullable(client.resources(type).inNamespace(NS).withName(name).get());
  }

  private static int replicas(CdcSink sink) {
    return get(Deployment.class, sink.getMetadata().getName() + "-worker").map(d -> d.getSpec().getReplicas()).orElse(-1);
  }

  private static String configHash(CdcSink sink) {
    return get(Deployment.class, sink.getMetadata().getName() + "-worker")
        .map(d -> d.getSpec().getTemplate().getMetadata().getAnnotations().get(SinkResources.CONFIG_HASH)).orElse(null);
  }

  private static List<Event> events(CdcSink sink, String reason) {
    return client.v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> sink.getMetadata().getName().equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
        .toList();
  }

  private static void assertOwnedBy(OwnerReference ref, CdcSink sink) {
    assertThat(ref.getKind()).isEqualTo("CdcSink");
    assertThat(ref.getName()).isEqualTo(sink.getMetadata().getName());
    assertThat(ref.getUid()).isEqualTo(sink.getMetadata().getUid());
  }

  private static void produce(String topic, int count) throws Exception {
    try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", kafka.bootstrapServers()),
        new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < count; i++) {
        p.send(new ProducerRecord<>(topic, i % 4, "k" + i, "v" + i)).get();
      }
    }
  }

  static final java.time.Instant STAMPED = java.time.Instant.parse("2026-03-01T10:00:00Z");

  private static void commitToEnd(String group, String topic) throws Exception {
    try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()))) {
      Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
      for (int p = 0; p < 4; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      Map<TopicPartition, OffsetAndMetadata> end = new java.util.HashMap<>();
      // as a worker commits them after a snapshot: stamped with its time and id
      admin.listOffsets(latest).all().get().forEach((tp, info) ->
          end.put(tp, new OffsetAndMetadata(info.offset(), dev.floe.worker.runtime.CommitStamp.of(STAMPED, 42))));
      admin.alterConsumerGroupOffsets(group, end).all().get();
    }
  }
}
