package dev.floe.worker.runtime;

import java.lang.management.ManagementFactory;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a worker process reached each step of starting, in seconds since the JVM started, logged
 * once with its first commit: what scale-from-zero pays on every wake-up, and where it goes.
 * Steps are marked from several threads (catalog and table on the applying thread, Kafka on the
 * polling thread); the first mark of a name counts.
 */
public final class StartupTimeline {
  private static final Logger LOG = LoggerFactory.getLogger(StartupTimeline.class);
  private static final StartupTimeline PROCESS = new StartupTimeline(ManagementFactory.getRuntimeMXBean().getStartTime());

  private final long jvmStartMillis;
  private final Map<String, Double> marks = new LinkedHashMap<>();
  private boolean reported;

  /** This process's timeline, from the JVM's start (one per process: a process starts once). */
  public static StartupTimeline process() {
    return PROCESS;
  }

  StartupTimeline(long jvmStartMillis) {
    this.jvmStartMillis = jvmStartMillis;
  }

  /** Marks a step as reached now, unless it was reached before. */
  public synchronized void mark(String step) {
    if (!reported) {
      marks.putIfAbsent(step, (System.currentTimeMillis() - jvmStartMillis) / 1000.0);
    }
  }

  /** Seconds since the JVM started at which each step was first reached, in the order they were. */
  public synchronized Map<String, Double> marks() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(marks)); // Map.copyOf would lose the order
  }

  /** Marks the first commit and logs the timeline; later calls do nothing. */
  public synchronized void firstCommit() {
    if (reported) {
      return;
    }
    mark("first commit");
    reported = true;
    StringJoiner steps = new StringJoiner(", ");
    marks.forEach((step, at) -> steps.add(String.format(Locale.ROOT, "%s %.2f", step, at)));
    LOG.info("first commit {} s after the process started (seconds since start: {})",
        String.format(Locale.ROOT, "%.2f", marks.get("first commit")), steps);
  }
}
