package dev.floe.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.operator.model.CdcSink;
import dev.floe.operator.model.CdcSinkSpec;
import dev.floe.operator.model.WorkerPodSpec;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CatalogType;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.SchemaRegistrySpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every Secret a sink names is mounted into its workers: Kafka's, the catalog's and the schema registry's. */
class WorkerSecretsTest {
  @Test
  void theSchemaRegistrysSecretIsMountedBesideKafkasAndTheCatalogs() {
    SourceSpec source = new SourceSpec("kafka:9092", List.of("pg.public.orders"), null, "floe-orders", "kafka-client", Map.of())
        .withAvro(new SchemaRegistrySpec("https://apicurio:8443", null, null, null, "registry-credentials", null, null));
    CdcSink sink = new CdcSink();
    sink.setSpec(new CdcSinkSpec(source,
        new TableSpec(new CatalogSpec(CatalogType.REST, "http://rest:8181", null, null, "lake-credentials", Map.of()),
            "analytics.orders", List.of(), List.of(), 2, null, Map.of(), Map.of()),
        null, new DeadLetterSpec("floe.dlq.orders"), null, null, null, WorkerPodSpec.DEFAULTS));

    assertThat(WorkerPods.secretRefs(sink)).containsExactly("kafka-client", "registry-credentials", "lake-credentials");
  }
}
