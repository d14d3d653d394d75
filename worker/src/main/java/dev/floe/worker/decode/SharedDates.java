package dev.floe.worker.decode;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;

/**
 * Dates and timestamps decoded with their {@link LocalDate} shared. A batch holds every event it
 * decoded until it commits, and a {@code LocalDateTime} is three objects (72 bytes) of which the
 * date repeats: a batch's rows fall on a few days. A lossy table of fixed size, read and written
 * without locks by every decoding thread: a slot holds one date or another (immutable, so either
 * is safe to hand out), and a miss only costs building the date, as without the table.
 */
final class SharedDates {
  private static final int SLOTS = 1 << 12;
  private static final LocalDate[] SLOT = new LocalDate[SLOTS];
  private static final long MICROS_PER_SECOND = 1_000_000L;
  private static final long SECONDS_PER_DAY = 86_400L;

  private SharedDates() {}

  /** The date {@code epochDay} days after 1970-01-01, as {@link LocalDate#ofEpochDay}. */
  static LocalDate ofEpochDay(long epochDay) {
    int i = (int) (epochDay & (SLOTS - 1));
    LocalDate held = SLOT[i];
    if (held != null && held.toEpochDay() == epochDay) {
      return held;
    }
    LocalDate d = LocalDate.ofEpochDay(epochDay);
    SLOT[i] = d;
    return d;
  }

  /**
   * The timestamp {@code micros} microseconds after 1970-01-01T00:00, as Iceberg's
   * {@code DateTimeUtil.timestampFromMicros} gives it (the property test compares the two).
   */
  static LocalDateTime timestampFromMicros(long micros) {
    long seconds = Math.floorDiv(micros, MICROS_PER_SECOND);
    long nanoOfSecond = Math.floorMod(micros, MICROS_PER_SECOND) * 1_000L;
    long day = Math.floorDiv(seconds, SECONDS_PER_DAY);
    long nanoOfDay = Math.floorMod(seconds, SECONDS_PER_DAY) * 1_000_000_000L + nanoOfSecond;
    return LocalDateTime.of(ofEpochDay(day), LocalTime.ofNanoOfDay(nanoOfDay));
  }
}
