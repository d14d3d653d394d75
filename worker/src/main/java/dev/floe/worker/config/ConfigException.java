package dev.floe.worker.config;

import java.util.List;
import java.util.stream.Collectors;

/** A sink config that cannot be used, with every problem found in it. */
public class ConfigException extends RuntimeException {
  private final List<ConfigProblem> problems;

  public ConfigException(List<ConfigProblem> problems) {
    super(
        "invalid sink config:\n"
            + problems.stream().map(p -> "  - " + p).collect(Collectors.joining("\n")));
    this.problems = List.copyOf(problems);
  }

  public ConfigException(String field, String problem, String example) {
    this(List.of(new ConfigProblem(field, problem, example)));
  }

  public List<ConfigProblem> problems() {
    return problems;
  }
}
