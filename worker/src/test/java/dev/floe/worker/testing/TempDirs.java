package dev.floe.worker.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removes a test's directory tree. */
public final class TempDirs {
  private TempDirs() {}

  /**
   * As {@link #delete}, telling on standard error what it left behind instead of failing: for a
   * container's cleanup, where a failed property can leave a table being written.
   */
  public static void deleteOrWarn(Path dir) {
    try {
      delete(dir);
    } catch (IOException e) {
      System.err.println("left " + dir + " behind: " + e);
    }
  }

  public static void delete(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
