package dev.floe.worker.config;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The cron schedules a Kubernetes CronJob accepts: five fields, or a macro. Checked here so that
 * {@code floe validate} refuses what the apiserver would (the operator's CronJob takes it as is).
 */
public final class CronSchedule {
  private static final List<String> MACROS = List.of("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly");
  private static final String ITEM = "(\\*|\\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(/[0-9]+)?";
  private static final Pattern FIELD = Pattern.compile(ITEM + "(," + ITEM + ")*");
  /** Lowest and highest value of each field; names (JAN, MON) are taken as they are. */
  private static final int[][] RANGES = {{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}};

  private CronSchedule() {}

  public static boolean isValid(String schedule) {
    String s = schedule.trim();
    if (s.startsWith("@")) {
      return MACROS.contains(s.toLowerCase(java.util.Locale.ROOT));
    }
    String[] fields = s.split("\\s+");
    if (fields.length != 5) {
      return false;
    }
    for (int i = 0; i < 5; i++) {
      if (!FIELD.matcher(fields[i]).matches() || !inRange(fields[i], RANGES[i])) {
        return false;
      }
    }
    return true;
  }

  private static boolean inRange(String field, int[] range) {
    for (String item : field.split(",")) {
      String[] stepped = item.split("/");
      if (stepped.length == 2 && (stepped[1].length() > 4 || Integer.parseInt(stepped[1]) < 1)) {
        return false;
      }
      for (String bound : stepped[0].split("-")) {
        // names (JAN, MON) are left to the apiserver's parser; numbers must be within the field
        if (bound.chars().allMatch(Character::isDigit)
            && (bound.length() > 2 || Integer.parseInt(bound) < range[0] || Integer.parseInt(bound) > range[1])) {
          return false;
        }
      }
    }
    return true;
  }
}
