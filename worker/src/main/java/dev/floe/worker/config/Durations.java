package dev.floe.worker.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the human durations used in configs: {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, or ISO-8601. */
public final class Durations {
  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private Durations() {}

  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("empty duration");
    }
    Matcher m = SHORT.matcher(text.trim());
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      return Duration.parse(text.trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a duration: '" + text + "' (examples: 500ms, 10s, 5m)");
    }
  }
}
