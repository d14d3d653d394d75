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
}
