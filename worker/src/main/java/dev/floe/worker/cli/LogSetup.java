package dev.floe.worker.cli;

import java.util.Arrays;

/** Chooses the log format before any logger exists: one line per event, JSON when asked. */
final class LogSetup {
  private LogSetup() {}

  static void configure(String[] args) {
    boolean json = "json".equalsIgnoreCase(System.getenv("FLOE_LOG_FORMAT"))
        || Arrays.asList(args).contains("--log-format=json");
    if (json && System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "logback-json.xml");
    }
  }
}
