package dev.floe.worker.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code floe} command: run a sink, inspect its offsets, validate a config, or try the quickstart. */
@Command(
    name = "floe",
    mixinStandardHelpOptions = true,
    version = "floe 0.1.0",
    description = "Keeps Apache Iceberg tables equal to Debezium change streams, exactly once.",
    subcommands = {RunCommand.class, CompactCommand.class, OffsetsCommand.class, StatusCommand.class, ShowCommand.class, DeadLettersCommand.class, ValidateCommand.class, QuickstartCommand.class})
public final class Floe implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    LogSetup.configure(args);
    System.exit(new CommandLine(new Floe()).setExecutionExceptionHandler(Floe::handle).execute(args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  static int handle(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
    StringBuilder message = new StringBuilder("floe: " + e.getMessage());
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      message.append("\n  caused by: ").append(c);
    }
    cmd.getErr().println(message);
    return e instanceof dev.floe.worker.config.ConfigException ? 2 : 1;
  }
}
