package dev.floe.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.config.SourceFormat;
import dev.floe.worker.quickstart.Quickstart;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The quickstart, run small: a table equal to the source, lag 0, and a summary a person can read. */
class QuickstartTest {
  @TempDir Path dir;

  @Test
  void theQuickstartEndsWithTheTableEqualToTheSourceAndLagZero() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Quickstart.Summary s = Quickstart.run(new Quickstart.Options(6_000, 600, dir), new PrintStream(out, true, StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);

    assertThat(s.equal()).isTrue();
    assertThat(s.lag()).isZero();
    assertThat(s.events()).isEqualTo(6_000);
    assertThat(s.rows()).isEqualTo(s.sourceRows()).isPositive();
    assertThat(printed).contains("equal, row for row").contains("lag              0").contains("updated_at");
  }

  @Test
  void theQuickstartInAvroThroughItsOwnRegistryEndsEqualToTheSource() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Quickstart.Summary s = Quickstart.run(new Quickstart.Options(3_000, 300, dir, SourceFormat.AVRO),
        new PrintStream(out, true, StandardCharsets.UTF_8));

    assertThat(s.equal()).isTrue();
    assertThat(s.lag()).isZero();
    assertThat(s.rows()).isEqualTo(s.sourceRows()).isPositive();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("schema registry http://").contains("records in Avro");
  }
}
