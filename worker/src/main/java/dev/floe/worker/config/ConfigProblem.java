package dev.floe.worker.config;

/** One thing wrong in a sink config: the field, what is wrong, and an example of right. */
public record ConfigProblem(String field, String problem, String example) {
  @Override
  public String toString() {
    return field + ": " + problem + (example == null ? "" : " (for example: " + example + ")");
  }
}
