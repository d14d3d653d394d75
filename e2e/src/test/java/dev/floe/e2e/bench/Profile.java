package dev.floe.e2e.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/** Where a JFR recording says the CPU went: the hottest methods (top frame) and packages of the Floe code on the stack. */
final class Profile {
  private Profile() {}

  /** Share of execution samples per method at the top of the stack, hottest first. */
  static Map<String, Double> hotMethods(Path recording, int limit) throws IOException {
    Map<String, Integer> counts = new HashMap<>();
    int total = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      RecordedStackTrace stack = e.getStackTrace();
      if (stack == null || stack.getFrames().isEmpty()) {
        continue;
      }
      total++;
      RecordedFrame top = stack.getFrames().get(0);
      counts.merge(top.getMethod().getType().getName() + "." + top.getMethod().getName(), 1, Integer::sum);
    }
    return top(counts, total, limit);
  }

  /** Share of execution samples whose stack passes through each Floe class (inclusive time). */
  static Map<String, Double> floeClasses(Path recording, int limit) throws IOException {
    Map<String, Integer> counts = new HashMap<>();
    int total = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
        continue;
      }
      total++;
      java.util.Set<String> seen = new java.util.HashSet<>();
      List<RecordedFrame> frames = e.getStackTrace().getFrames();
      for (RecordedFrame f : frames) {
        String type = f.getMethod().getType().getName();
        if (type.startsWith("dev.floe.") && seen.add(type)) {
          counts.merge(type.replace("dev.floe.worker.", ""), 1, Integer::sum);
        }
      }
    }
    return top(counts, total, limit);
  }

  private static Map<String, Double> top(Map<String, Integer> counts, int total, int limit) {
    Map<String, Double> out = new LinkedHashMap<>();
    counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(limit)
        .forEach(en -> out.put(en.getKey(), Math.round(1000.0 * en.getValue() / Math.max(1, total)) / 10.0));
    return out;
  }
}
