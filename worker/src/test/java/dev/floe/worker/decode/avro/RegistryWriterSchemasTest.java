package dev.floe.worker.decode.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.worker.config.SchemaRegistrySpec;
import dev.floe.worker.config.SecretResolver;
import dev.floe.worker.runtime.FailureClassifier;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.Test;

/** The registry client over real HTTP: what each answer means for the record (rejected) or the worker (outage, refusal). */
class RegistryWriterSchemasTest {
  private static final Schema ORDER = SchemaBuilder.record("Order").fields().requiredLong("id").endRecord();

  @Test
  void eachIdKindIsFetchedFromItsEndpointAndOnceOnly() throws Exception {
    try (StandInRegistry registry = new StandInRegistry().with(7, ORDER)) {
      WriterSchemas schemas = new CachedWriterSchemas(client(registry.url() + "/apis/registry/v3/", Map.of()));

      for (SchemaId id : new SchemaId[] {SchemaId.confluent(7), SchemaId.globalId(7), SchemaId.contentId(7)}) {
        assertThat(schemas.writerSchema(id)).as("%s", id).isEqualTo(ORDER);
        assertThat(schemas.writerSchema(id)).isEqualTo(ORDER);
      }

      assertThat(registry.requests()).isEqualTo(3);
    }
  }

  @Test
  void anIdTheRegistryDoesNotKnowIsAnUnknownSchemaAskedForOnceInAWhile() throws Exception {
    try (StandInRegistry registry = new StandInRegistry()) {
      WriterSchemas schemas = new CachedWriterSchemas(client(registry.url(), Map.of()));

      for (int i = 0; i < 3; i++) {
        assertThatThrownBy(() -> schemas.writerSchema(SchemaId.confluent(99))).isInstanceOf(UnknownSchemaException.class)
            .hasMessageContaining("schema id 99");
      }
      assertThat(registry.requests()).isEqualTo(1);
    }
  }

  @Test
  void aRegistryThatIsDownOrFailingIsAnOutageTheRunnerRetries() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    RegistryWriterSchemas down = client("http://127.0.0.1:" + closedPort, Map.of());
    assertThatThrownBy(() -> down.writerSchema(SchemaId.confluent(1))).isInstanceOf(SchemaRegistryUnavailableException.class)
        .satisfies(e -> assertThat(FailureClassifier.classify(e)).isEqualTo(FailureClassifier.Kind.TRANSIENT));

    try (StandInRegistry registry = new StandInRegistry().with(1, ORDER)) {
      registry.failWith(503);
      RegistryWriterSchemas failing = client(registry.url(), Map.of());
      assertThatThrownBy(() -> failing.writerSchema(SchemaId.globalId(1))).isInstanceOf(SchemaRegistryUnavailableException.class)
          .hasMessageContaining("503")
          .satisfies(e -> assertThat(FailureClassifier.classify(e)).isEqualTo(FailureClassifier.Kind.TRANSIENT));

      registry.failWith(0);
      assertThat(failing.writerSchema(SchemaId.globalId(1))).isEqualTo(ORDER);
    }
  }

  @Test
  void credentialsComeFromReferencesAndARefusalStopsTheWorker() throws Exception {
    try (StandInRegistry registry = new StandInRegistry().with(1, ORDER)) {
      registry.requireAuthorization("Basic " + Base64.getEncoder().encodeToString("floe:s3cret-pw".getBytes(StandardCharsets.UTF_8)));
      SecretResolver env = new SecretResolver(Map.of("REGISTRY_PASSWORD", "s3cret-pw")::get);
      SchemaRegistrySpec withPassword = new SchemaRegistrySpec(registry.url(), "floe", "${env:REGISTRY_PASSWORD}", null, null, null, null);

      assertThat(RegistryWriterSchemas.of(withPassword, env).writerSchema(SchemaId.confluent(1))).isEqualTo(ORDER);

      RegistryWriterSchemas anonymous = client(registry.url(), Map.of());
      assertThatThrownBy(() -> anonymous.writerSchema(SchemaId.confluent(1))).isInstanceOf(SchemaRegistryRefusedException.class)
          .hasMessageContaining("401")
          .satisfies(e -> assertThat(FailureClassifier.classify(e)).isEqualTo(FailureClassifier.Kind.PERMANENT));
      assertThat(withPassword.toString()).doesNotContain("s3cret-pw");
    }
  }

  @Test
  void aUrlThatIsNotTheRegistrysIsARefusalNotAFloodOfUnknownSchemas() throws Exception {
    try (StandInRegistry registry = new StandInRegistry()) {
      RegistryWriterSchemas elsewhere = client(registry.url() + "/some/other/app", Map.of());

      assertThatThrownBy(() -> elsewhere.writerSchema(SchemaId.confluent(1))).isInstanceOf(SchemaRegistryRefusedException.class)
          .hasMessageContaining("is source.schemaRegistry.url the registry's base URL?");
    }
  }

  @Test
  void aRegistryFoundDownIsNotAskedAgainForAMomentSoPollingNeverWaitsOutATimeoutPerRecord() throws Exception {
    try (StandInRegistry registry = new StandInRegistry().with(1, ORDER).with(2, ORDER)) {
      registry.failWith(503);
      long[] now = {0};
      WriterSchemas schemas = new CachedWriterSchemas(client(registry.url(), Map.of()), () -> now[0]);

      for (long id = 1; id <= 2; id++) {
        long asked = id;
        assertThatThrownBy(() -> schemas.writerSchema(SchemaId.confluent(asked))).isInstanceOf(SchemaRegistryUnavailableException.class);
      }
      assertThat(registry.requests()).as("asked once in the pause").isEqualTo(1);

      registry.failWith(0);
      now[0] += java.time.Duration.ofSeconds(3).toNanos();
      assertThat(schemas.writerSchema(SchemaId.confluent(2))).isEqualTo(ORDER);
    }
  }

  private static RegistryWriterSchemas client(String url, Map<String, String> env) {
    return RegistryWriterSchemas.of(SchemaRegistrySpec.at(url), new SecretResolver(env::get));
  }
}
