package dev.floe.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Durations parse exactly what their pattern (also the CRD's) admits; intervals must be positive. */
class DurationsTest {
  @Test
  void shortAndIsoFormsParse() {
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("10 s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(Durations.parse("3d")).isEqualTo(Duration.ofDays(3));
    assertThat(Durations.parse("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
    assertThat(Durations.parse("P1DT2H")).isEqualTo(Duration.ofHours(26));
    assertThat(Durations.parse("PT0.5S")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("0s")).isZero();
  }

  @Test
  void whatThePatternRefusesDoesNotParse() {
    for (String bad : new String[] {"10", "ten seconds", "-PT1S", "PT", "P1DT", "pt10s", "99999999999s", "5 minutes"}) {
      assertThatThrownBy(() -> Durations.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void intervalsMustBeLongerThanZero() {
    assertThat(Durations.parsePositive("1ms")).isEqualTo(Duration.ofMillis(1));
    assertThatThrownBy(() -> Durations.parsePositive("0s")).hasMessageContaining("longer than zero");
    assertThatThrownBy(() -> Durations.parsePositive("PT0S")).hasMessageContaining("longer than zero");
  }

  @Test
  void cronSchedulesAreFiveFieldsOrAMacro() {
    assertThat(CronSchedules.isValid("17 */2 * * *")).isTrue();
    assertThat(CronSchedules.isValid("0 3 * * MON-FRI")).isTrue();
    assertThat(CronSchedules.isValid("@daily")).isTrue();
    assertThat(CronSchedules.isValid("0 3 * *")).isFalse();
    assertThat(CronSchedules.isValid("every 2 hours")).isFalse();
    assertThat(CronSchedules.isValid("TZ=UTC 0 3 * * *")).isFalse();
  }
}
