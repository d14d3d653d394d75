package dev.floe.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line builds only the subcommand it is asked for, and still helps with all of them. */
class FloeCommandLineTest {
  @Test
  void aNamedSubcommandIsTheOnlyOneBuiltAndKeepsItsOptionsAndName() {
    // when the worker's arguments are parsed
    CommandLine cli = Floe.commandLine(new String[] {"run", "--config", "sink.yaml"});

    // then only `run` exists, with its options, under `floe`
    assertThat(cli.getSubcommands()).containsOnlyKeys("run");
    assertThat(cli.getSubcommands().get("run").getCommandSpec().findOption("--grace")).isNotNull();
    assertThat(cli.getSubcommands().get("run").getCommandSpec().qualifiedName()).isEqualTo("floe run");
    assertThat(cli.getCommandSpec().version()).containsExactly("floe 0.1.0");
  }

  @Test
  void helpAndUnknownCommandsSeeEverySubcommand() {
    // given no subcommand, or one that does not exist
    for (String[] args : new String[][] {{}, {"--help"}, {"rn"}}) {
      CommandLine cli = Floe.commandLine(args);
      StringWriter err = new StringWriter();
      cli.setErr(new PrintWriter(err)).setOut(new PrintWriter(new StringWriter()));

      // then all subcommands are there to list or suggest
      assertThat(cli.getSubcommands()).containsKeys("run", "compact", "offsets", "status", "show", "dead-letters", "skip", "validate", "quickstart");
      if (args.length == 1 && args[0].equals("rn")) {
        assertThat(cli.execute(args)).isEqualTo(2);
        assertThat(err.toString()).contains("run");
      }
    }
  }
}
