package dev.floe.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code kubectl explain cdcsink --recursive} documents every field, and {@code kubectl get} reads left to right. */
class CrdDocumentationTest {
  static JsonNode version() throws IOException {
    return CrdPostProcessor.YAML.readTree(Files.readString(CrdUpToDateTest.COMMITTED)).path("spec").path("versions").get(0);
  }

  @Test
  void everyFieldListItemAndTheRootHaveADescription() throws IOException {
    JsonNode root = version().path("schema").path("openAPIV3Schema");
    List<String> undocumented = new ArrayList<>();
    CrdSchema.walk(root, (path, node) -> {
      if (node.path("description").asText("").isBlank()) {
        undocumented.add(path.isEmpty() ? "(the root)" : path);
      }
    });
    assertThat(undocumented).as("describe these with @JsonPropertyDescription or in crd-descriptions.yaml").isEmpty();
    assertThat(CrdSchema.at(root, "status.conditions[].reason").path("description").asText()).isNotBlank();
  }

  @Test
  void printerColumnsComeInReadingOrderWithWideExtras() throws IOException {
    List<String> normal = new ArrayList<>();
    List<String> wide = new ArrayList<>();
    version().path("additionalPrinterColumns").forEach(c -> (c.path("priority").asInt() == 0 ? normal : wide).add(c.get("name").asText()));
    assertThat(normal).containsExactly("Ready", "Lag", "Replicas", "Table", "Age");
    assertThat(wide).containsExactly("Last Commit", "Reason");
    JsonNode replicas = CrdSchema.at(version().path("schema").path("openAPIV3Schema"), "status.replicasSummary");
    assertThat(replicas).as("the Replicas column reads status.replicasSummary").isNotNull();
  }
}
