package dev.floe.worker.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code floe} command: run a sink, inspect its offsets, skip a record it stopped at, validate a config, or try the quickstart. */
@Command(
    name = "floe",
    mixinStandardHelpOptions = true,
    version = "floe 0.1.0",
    description = "Keeps Apache Iceberg tables equal to Debezium change streams, exactly once.",
    subcommands = {RunCommand.class, CompactCommand.class, OffsetsCommand.class, StatusCommand.class, ShowCommand.class,
        DeadLettersCommand.class, SkipCommand.class, ValidateCommand.class, QuickstartCommand.class})
public final class Floe implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    LogSetup.configure(args);
    System.exit(commandLine(args).setExecutionExceptionHandler(Floe::handle).execute(args));
  }

  /**
   * The command line for these arguments. Picocli reflects over every command it is given, which
   * took ~0.5 s of a worker's start: when the first argument names a subcommand, only that one is
   * built, under a {@code floe} of the same options; otherwise (help, a typo) all of them are.
   */
  static CommandLine commandLine(String[] args) {
    if (args.length > 0) {
      for (Class<?> sub : Floe.class.getAnnotation(Command.class).subcommands()) {
        String name = sub.getAnnotation(Command.class).name();
        if (name.equals(args[0])) {
          CommandLine floe = new CommandLine(CommandLine.Model.CommandSpec.create().name("floe").mixinStandardHelpOptions(true)
              .version(Floe.class.getAnnotation(Command.class).version()));
          return floe.addSubcommand(name, sub);
        }
      }
    }
    return new CommandLine(new Floe());
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
