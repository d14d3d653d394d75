package dev.floe.worker.cli;

import dev.floe.worker.logging.FloeLogConfigurator;

/** Chooses the log format before any logger exists: one line per event, JSON when asked (see {@link FloeLogConfigurator}). */
final class LogSetup {
  private LogSetup() {}

  /** The {@code floe} command logs as a pod does, whatever logback files the class path holds (a test's, say). */
  static void configure(String[] args) {
    if (System.getProperty(FloeLogConfigurator.FORMAT_PROPERTY) == null) {
      System.setProperty(FloeLogConfigurator.FORMAT_PROPERTY, json(args, System.getenv("FLOE_LOG_FORMAT")) ? "json" : "text");
    }
  }

  /**
   * Whether JSON logs are asked for, by the environment or by {@code --log-format json} in either
   * of picocli's spellings: the operator passes it as two arguments, a person often as one.
   */
  static boolean json(String[] args, String envFormat) {
    boolean json = "json".equalsIgnoreCase(envFormat);
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--")) {
        break; // what follows is not an option
      }
      if (args[i].equalsIgnoreCase("--log-format=json")
          || (args[i].equals("--log-format") && i + 1 < args.length && args[i + 1].equalsIgnoreCase("json"))) {
        json = true;
      }
    }
    return json;
  }
}
