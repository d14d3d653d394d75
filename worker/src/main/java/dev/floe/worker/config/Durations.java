package dev.floe.worker.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the human durations used in configs: {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 3d}, or ISO-8601 ({@code PT10S}). */
public final class Durations {
  /**
   * Every duration the parser accepts, and nothing it refuses: the CRD schema carries it too, so
   * the API server refuses at admission what the operator would otherwise report as Stalled. No
   * backslashes (it sits in CEL string literals), digits bounded so that no value overflows.
   */
  public static final String PATTERN = "^[ ]*([0-9]{1,9}[ ]*(ms|s|m|h|d)"
      + "|P[0-9]{1,9}D"
      + "|P([0-9]{1,9}D)?T([0-9]{1,9}H([0-9]{1,9}M)?([0-9]{1,9}([.][0-9]{1,9})?S)?"
      + "|[0-9]{1,9}M([0-9]{1,9}([.][0-9]{1,9})?S)?|[0-9]{1,9}([.][0-9]{1,9})?S))[ ]*$";
  /** A CEL rule for durations that must be longer than zero (a zero interval would spin). */
  public static final String POSITIVE_RULE = "self.matches('" + PATTERN + "') && self.matches('[1-9]')";
  public static final String POSITIVE_MESSAGE = "must be a duration longer than zero, such as 500ms, 10s, 5m, 1h, 3d or PT10S";
  /** Longest duration text the CRD admits: bounds the API server's cost estimate of the rules. */
  public static final int MAX_LENGTH = 40;

  private static final Pattern GRAMMAR = Pattern.compile(PATTERN);
  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private Durations() {}

  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("empty duration");
    }
    if (!GRAMMAR.matcher(text).matches()) {
      throw new IllegalArgumentException("not a duration: '" + text + "' (examples: 500ms, 10s, 5m, 3d, PT10S)");
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
    return Duration.parse(text.trim());
  }

  /** Parses a duration that must be longer than zero. */
  public static Duration parsePositive(String text) {
    Duration d = parse(text);
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException("must be longer than zero, got '" + text + "'");
    }
    return d;
  }
}
