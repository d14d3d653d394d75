package dev.floe.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageJvmFlagsTest {

  @Test
  void theBenchmarksWorkerGetsTheImagesFlagsWithItsHeapFixed() {
    // given the worker module's own POM, as the benchmark reads it
    Path pom = Path.of("../worker/pom.xml");

    // when
    List<String> declared = ImageJvmFlags.declared(pom);
    List<String> flags = ImageJvmFlags.of(pom, "2g");

    // then every flag of the image is there but its heap shares, which became a fixed heap in their place
    assertThat(declared).contains("-XX:+UseParallelGC").anyMatch(f -> f.startsWith("-XX:MaxRAMPercentage="));
    assertThat(flags).hasSameSizeAs(declared).contains("-Xmx2g", "-Xms2g")
        .noneMatch(f -> f.contains("RAMPercentage"))
        .containsAll(declared.stream().filter(f -> !f.contains("RAMPercentage")).toList());
    assertThat(flags.indexOf("-Xmx2g")).isEqualTo(declared.indexOf(declared.stream().filter(f -> f.startsWith("-XX:MaxRAMPercentage=")).findFirst().orElseThrow()));
  }

  @Test
  void onlyTheContainersFlagsCountAndAPomWithoutThemFails(@TempDir Path dir) throws IOException {
    // given a POM whose only jvmFlag is outside a Jib container
    Path pom = dir.resolve("pom.xml");
    Files.writeString(pom, """
        <project><build><plugins><plugin><configuration>
          <other><jvmFlags><jvmFlag>-Xint</jvmFlag></jvmFlags></other>
        </configuration></plugin></plugins></build></project>
        """);

    // when, then: the benchmark refuses to run a worker unlike the image's
    assertThatThrownBy(() -> ImageJvmFlags.of(pom, "2g")).isInstanceOf(IllegalStateException.class).hasMessageContaining("no jvmFlag");

    // and given the same flag inside a container, that one is read, stripped
    Files.writeString(pom, """
        <project><build><plugins><plugin><configuration>
          <container><jvmFlags>
            <!-- a comment between flags -->
            <jvmFlag> -XX:+UseSerialGC </jvmFlag>
            <jvmFlag>-XX:InitialRAMPercentage=50</jvmFlag>
          </jvmFlags></container>
        </configuration></plugin></plugins></build></project>
        """);
    assertThat(ImageJvmFlags.of(pom, "1g")).containsExactly("-XX:+UseSerialGC", "-Xms1g");
  }
}
