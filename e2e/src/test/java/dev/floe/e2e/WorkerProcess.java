package dev.floe.e2e;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code floe run} (or any floe command) in a child JVM, as a pod runs it. */
public final class WorkerProcess {
  private final Process process;
  final Path log;

  private WorkerProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static WorkerProcess start(Path log, String... args) {
    return start(log, List.of("-Xmx512m", "-XX:+UseSerialGC"), args);
  }

  /** @param jvm JVM options (heap, GC, a flight recording) */
  public static WorkerProcess start(Path log, List<String> jvm, String... args) {
    // -Dfloe.worker.java runs the worker on another JDK than the tests' (to compare runtimes)
    String java = System.getProperty("floe.worker.java", ProcessHandle.current().info().command().orElse("java"));
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(jvm);
    command.addAll(List.of(
        // S3Proxy does not know the AWS SDK's newer default checksums; real S3 does not need this
        "-Daws.requestChecksumCalculation=WHEN_REQUIRED", "-Daws.responseChecksumValidation=WHEN_REQUIRED", "-cp", System.getProperty("java.class.path"),
        "dev.floe.worker.cli.Floe"));
    command.addAll(List.of(args));
    try {
      ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      return new WorkerProcess(b.start(), log);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + command, e);
    }
  }

  /** SIGKILL: no shutdown hook, no flush; mid-batch or mid-commit. */
  void kill() {
    process.destroyForcibly();
    waitFor(30);
  }

  /** SIGTERM: the worker finishes or abandons its open batch and exits 0. */
  public int stop() {
    process.destroy();
    return waitFor(60);
  }

  /** Waits until the log shows a line containing {@code text} (the worker got partitions, say). */
  public void awaitLog(String text, java.time.Duration timeout) {
    org.awaitility.Awaitility.await().atMost(timeout).until(() -> java.nio.file.Files.readString(log).contains(text));
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Waits for the process to end on its own (a one-shot command). */
  int await(long seconds) {
    return waitFor(seconds);
  }

  private int waitFor(long seconds) {
    try {
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException("floe did not exit within " + seconds + " s; see " + log);
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
