package dev.floe.worker.config;

import java.util.regex.Pattern;

/** The shape of a Kubernetes CronJob schedule: five cron fields, or a macro such as {@code @daily}. */
public final class CronSchedules {
  /** Shared by the CRD schema and {@link SinkSpecValidator}; the time zone goes in no schedule (CronJob refuses TZ=). */
  public static final String PATTERN = "^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)"
      + "|[0-9A-Za-z*/,?#-]+( +[0-9A-Za-z*/,?#-]+){4})$";

  private static final Pattern SCHEDULE = Pattern.compile(PATTERN);

  private CronSchedules() {}

  public static boolean isValid(String schedule) {
    return schedule != null && SCHEDULE.matcher(schedule).matches();
  }

  /** Lowest and highest value of each of the five fields; names (JAN, MON) are left to the apiserver. */
  private static final int[][] RANGES = {{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}};

  /**
   * Whether every number of a five-field schedule lies in its field's range and every step is at
   * least 1 (a macro passes): the CRD's pattern checks the shape only, and a CronJob with hour 24
   * is refused when the operator creates it, not when the CdcSink is applied.
   */
  public static boolean fieldsInRange(String schedule) {
    String s = schedule.trim();
    if (s.startsWith("@")) {
      return true;
    }
    String[] fields = s.split(" +");
    if (fields.length != RANGES.length) {
      return false;
    }
    for (int i = 0; i < fields.length; i++) {
      for (String item : fields[i].split(",")) {
        String[] stepped = item.split("/");
        if (stepped.length > 2 || stepped.length == 2 && !(digits(stepped[1]) && Integer.parseInt(stepped[1]) >= 1)) {
          return false;
        }
        for (String bound : stepped[0].split("-")) {
          if (digits(bound) && (Integer.parseInt(bound) < RANGES[i][0] || Integer.parseInt(bound) > RANGES[i][1])) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private static boolean digits(String s) {
    return !s.isEmpty() && s.length() <= 4 && s.chars().allMatch(Character::isDigit);
  }
}
