package dev.floe.worker.config;

import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.time.Duration;

/** When a batch closes: the first of interval, record count and byte count reached. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CommitSpec(
    @JsonPropertyDescription("Longest time a batch stays open, e.g. 10s, 1m, 500ms (default 10s).")
        @ValidationRule(value = Durations.POSITIVE_RULE, message = Durations.POSITIVE_MESSAGE)
        @Size(max = Durations.MAX_LENGTH) String interval,
    @JsonPropertyDescription(
            "Most records in one batch, held exactly (default 500000; a batch of 500000 orders"
                + " records peaked near 1 GiB of live heap while applied). A starting worker's first"
                + " batch holds a sixteenth of it, each next one twice the one before, so that it"
                + " applies while it reads its backlog (no ramp when a sixteenth is under 20000).")
        @Min(1) Integer maxRecords,
    @JsonPropertyDescription(
            "Most bytes one batch holds (default 256 MiB): each record's key and value, less the"
                + " JsonConverter schema its value repeats from the record before it on its topic,"
                + " which the batch holds once. So the limit counts payloads: an orders record of"
                + " 2 KB (mostly schema) counts about 0.5 KB.")
        @Min(1) Long maxBytes) {

  public static final CommitSpec DEFAULTS = new CommitSpec(null, null, null);

  public CommitSpec {
    interval = interval == null ? "10s" : interval;
    maxRecords = maxRecords == null ? 500_000 : maxRecords;
    maxBytes = maxBytes == null ? 256L << 20 : maxBytes;
  }

  /** The interval as a duration. */
  public Duration intervalDuration() {
    return Durations.parse(interval);
  }
}
