package dev.floe.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The committed CRD in crds/ is the one the build generates from the Java model (then {@link CrdPostProcessor}). */
class CrdUpToDateTest {
  static final Path GENERATED = Path.of("target/classes/META-INF/fabric8/cdcsinks.floe.dev-v1.yml");
  static final Path COMMITTED = Path.of("../crds/cdcsinks.floe.dev-v1.yml");

  @Test
  void theCommittedCrdMatchesTheModel() throws IOException {
    String generated = CrdPostProcessor.process(Files.readString(GENERATED));
    if (Boolean.getBoolean("floe.updateCrds")) {
      Files.writeString(COMMITTED, generated);
    }
    assertThat(Files.readString(COMMITTED))
        .as("crds/ is stale: run mvn -pl operator test -Dtest=CrdUpToDateTest -Dfloe.updateCrds=true and commit crds/")
        .isEqualTo(generated);
  }
}
