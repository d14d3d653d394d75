package dev.floe.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** floe validate warns about a literal secret, names the field and the fix, keeps exit 0 and never repeats the value. */
class ValidateCommandTest {
  @TempDir Path dir;

  @Test
  void aLiteralSecretIsAWarningNotAFailure() throws Exception {
    Path config = dir.resolve("sink.yaml");
    Files.writeString(config, """
        source: {bootstrapServers: "kafka:9092", topics: [t], groupId: g}
        table:
          name: a.b
          catalog: {type: rest, uri: "http://rest:8181", properties: {s3.secret-access-key: literal-9d2e}}
        deadLetter: {topic: dlq}
        """);
    PrintStream was = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit = new CommandLine(new ValidateCommand()).execute("-c", config.toString());
    } finally {
      System.setOut(was);
    }
    assertThat(exit).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("valid", "warning: table.catalog.properties.s3.secret-access-key",
        "literal secret", "${env:NAME}").doesNotContain("literal-9d2e");
  }

  @Test
  void anAvroSourceShowsItsRegistryAndWarnsOfALiteralToken() throws Exception {
    Path config = dir.resolve("avro.yaml");
    Files.writeString(config, """
        source:
          bootstrapServers: "kafka:9092"
          topics: [t]
          groupId: g
          format: avro
          schemaRegistry: {url: "https://apicurio:8443", token: tok-literal-5c1a}
        table: {name: a.b}
        deadLetter: {topic: dlq}
        """);
    PrintStream was = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit = new CommandLine(new ValidateCommand()).execute("-c", config.toString());
    } finally {
      System.setOut(was);
    }
    assertThat(exit).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("Records are avro, writer schemas from the registry at https://apicurio:8443 (bearer token)")
        .contains("warning: source.schemaRegistry.token").doesNotContain("tok-literal-5c1a");
  }
}
