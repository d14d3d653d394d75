package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.time.LocalDateTime;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.apache.iceberg.util.DateTimeUtil;
import org.junit.jupiter.api.Test;

/** Timestamps and dates decoded with shared dates equal Iceberg's own conversions, the reference. */
class SharedDatesTest {
  @Property
  void anyMicrosecondsGiveTheTimestampIcebergGives(@ForAll long micros) {
    LocalDateTime read = SharedDates.timestampFromMicros(micros);

    assertThat(read).isEqualTo(DateTimeUtil.timestampFromMicros(micros));
  }

  @Property
  void timestampsOfOneDayShareTheirDate(
      @ForAll @LongRange(min = -4_000_000, max = 4_000_000) long day, @ForAll @LongRange(min = 0, max = 86_399_999_999L) long microOfDay) {
    long micros = day * 86_400_000_000L + microOfDay;

    LocalDateTime first = SharedDates.timestampFromMicros(micros);
    LocalDateTime again = SharedDates.timestampFromMicros(day * 86_400_000_000L);

    assertThat(first).isEqualTo(DateTimeUtil.timestampFromMicros(micros));
    assertThat(again.toLocalDate()).isSameAs(first.toLocalDate());
  }

  @Property
  void anyDayGivesTheDateJavaGives(@ForAll @LongRange(min = -365_000_000L, max = 365_000_000L) long epochDay) {
    assertThat(SharedDates.ofEpochDay(epochDay)).isEqualTo(LocalDate.ofEpochDay(epochDay));
  }

  @Test
  void theEdgesOfALongAndOfADay() {
    for (long micros : new long[] {0, -1, 1, 86_399_999_999L, 86_400_000_000L, -86_400_000_000L, -86_400_000_001L,
        Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1}) {
      assertThat(SharedDates.timestampFromMicros(micros)).as("%d", micros).isEqualTo(DateTimeUtil.timestampFromMicros(micros));
    }
  }
}
