package dev.floe.worker.cli;

import dev.floe.worker.config.ConfigProblem;
import dev.floe.worker.config.LiteralSecrets;
import dev.floe.worker.config.Redactor;
import dev.floe.worker.config.SinkSpec;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Checks a sink config without running anything. */
@Command(name = "validate", mixinStandardHelpOptions = true, description = "Check a sink config; print what is wrong and how to fix it.")
final class ValidateCommand implements Callable<Integer> {
  @Mixin ConfigOption config;

  @Override
  public Integer call() {
    SinkSpec spec = config.load();
    System.out.printf("%s: valid. Sink %s reads %s into %s (%s catalog).%n", config.config, spec.sinkId(),
        spec.source().topics().isEmpty() ? "/" + spec.source().topicPattern() + "/" : spec.source().topics(),
        spec.table().name(), spec.table().catalog() == null ? "local" : spec.table().catalog().type().name().toLowerCase());
    System.out.printf("Records are %s%s.%n", spec.source().formatOrDefault().configName(), spec.source().schemaRegistry() == null ? ""
        : ", writer schemas from the registry at " + Redactor.redact(spec.source().schemaRegistry().url())
            + (spec.source().schemaRegistry().token() != null ? " (bearer token)"
                : spec.source().schemaRegistry().username() != null ? " (basic auth as " + spec.source().schemaRegistry().username() + ")"
                : spec.source().schemaRegistry().secretRef() != null ? " (credentials from secret " + spec.source().schemaRegistry().secretRef() + ")" : ""));
    // a literal secret works, so it warns rather than fails: the fix is where the secret lives
    for (ConfigProblem warning : LiteralSecrets.of(spec)) {
      System.out.println("warning: " + warning);
    }
    return 0;
  }
}
