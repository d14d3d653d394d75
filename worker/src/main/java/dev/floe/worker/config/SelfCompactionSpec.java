package dev.floe.worker.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.time.Duration;

/**
 * How the worker keeps the table it writes close to freshly written between {@code floe compact}
 * runs: once idle it rewrites the files that deletes apply to (and small files), and while busy it
 * rewrites any file whose dead rows pass a fraction.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SelfCompactionSpec(
    @JsonPropertyDescription("Let the worker compact what it wrote (default true).") Boolean enabled,
    @JsonPropertyDescription("Compact once no record has arrived for this long, e.g. 30s (default 30s); while busy, dead"
        + " fractions are checked this often.")
        @ValidationRule(value = Durations.POSITIVE_RULE, message = Durations.POSITIVE_MESSAGE)
        @Size(max = Durations.MAX_LENGTH) String idleAfter,
    @JsonPropertyDescription("While busy, a data file is rewritten once more than this fraction of its rows is deleted"
        + " (0 < f <= 1, default 0.2).")
        @Min(value = 0, inclusive = false) @Max(1) Double maxDeadFraction) {

  public static final SelfCompactionSpec DEFAULTS = new SelfCompactionSpec(null, null, null);

  public SelfCompactionSpec {
    enabled = enabled == null || enabled;
    idleAfter = idleAfter == null ? "30s" : idleAfter;
    maxDeadFraction = maxDeadFraction == null ? 0.2 : maxDeadFraction;
  }

  public Duration idleAfterDuration() {
    return Durations.parsePositive(idleAfter);
  }
}
