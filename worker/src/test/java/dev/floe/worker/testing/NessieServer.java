package dev.floe.worker.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real Nessie server (the Quarkus runner jar the build copies to {@code target/nessie}) as a child
 * process with an in-memory version store. It needs Java 21+: {@code FLOE_NESSIE_JAVA}, else the
 * newest JDK under {@code /usr/lib/jvm} that is new enough, else this JVM if it is. Tests that need
 * it are skipped where it cannot run, unless {@code FLOE_REQUIRE_NESSIE=1} (CI), where they fail.
 */
public final class NessieServer implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("Listening on: http://[^:]+:(\\d+)");
  private static final Duration STARTUP = Duration.ofSeconds(90);

  private final Process process;
  private final Path log;
  private final int port;

  private NessieServer(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /** Starts a server, or skips the calling test where none can run and none is required. */
  public static NessieServer start(Path dir) throws IOException, InterruptedException {
    Path jar = Path.of(System.getProperty("floe.nessie.jar", "target/nessie/nessie-server.jar"));
    Optional<Path> java = java21();
    if (!Files.isRegularFile(jar) || java.isEmpty()) {
      String why = !Files.isRegularFile(jar) ? "no Nessie server jar at " + jar : "no Java 21+ to run Nessie (set FLOE_NESSIE_JAVA)";
      if ("1".equals(System.getenv("FLOE_REQUIRE_NESSIE"))) {
        throw new IllegalStateException("Nessie is required (FLOE_REQUIRE_NESSIE=1): " + why);
      }
      assumeTrue(false, why);
    }
    Files.createDirectories(dir);
    Path log = dir.resolve("nessie.log");
    Process process = new ProcessBuilder(List.of(java.get().toString(), "-Xmx512m",
        "-Dnessie.version.store.type=IN_MEMORY", "-Dquarkus.http.port=0", "-Dquarkus.management.port=0",
        "-Dquarkus.otel.sdk.disabled=true", "-jar", jar.toString()))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + STARTUP.toNanos();
    while (System.nanoTime() < deadline) {
      Matcher m = LISTENING.matcher(Files.readString(log));
      if (m.find()) {
        return new NessieServer(process, log, Integer.parseInt(m.group(1)));
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("Nessie exited with " + process.exitValue() + ":\n" + Files.readString(log));
      }
      Thread.sleep(200); // polling the child's log for its port; nothing to await on
    }
    process.destroyForcibly();
    throw new IllegalStateException("Nessie did not start within " + STARTUP + ":\n" + Files.readString(log));
  }

  /** The Iceberg client's URI (Nessie's API v2). */
  public String uri() {
    return "http://127.0.0.1:" + port + "/api/v2";
  }

  public Path log() {
    return log;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  private static Optional<Path> java21() {
    String configured = System.getenv("FLOE_NESSIE_JAVA");
    if (configured != null && !configured.isBlank()) {
      return Optional.of(Path.of(configured));
    }
    if (Runtime.version().feature() >= 21) {
      return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
    }
    Path jvms = Path.of("/usr/lib/jvm");
    if (!Files.isDirectory(jvms)) {
      return Optional.empty();
    }
    try (Stream<Path> homes = Files.list(jvms)) {
      return homes.filter(h -> feature(h) >= 21 && Files.isExecutable(h.resolve("bin/java")))
          .max((a, b) -> Integer.compare(feature(a), feature(b)))
          .map(h -> h.resolve("bin/java"));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The JDK's feature version from its {@code release} file (JAVA_VERSION="25.0.1"), or 0. */
  private static int feature(Path home) {
    try {
      for (String line : Files.readAllLines(home.resolve("release"))) {
        if (line.startsWith("JAVA_VERSION=")) {
          String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
          return Integer.parseInt(v.split("[.+-]")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }
}
