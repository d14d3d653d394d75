package dev.floe.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.floe.worker.config.Durations;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.time.Duration;

/** How the worker count follows the consumer group's lag. */
@JsonInclude(JsonInclude.Include.NON_NULL)
// maxReplicas defaults to 4, so a minReplicas above 4 alone is as wrong as one above maxReplicas
@ValidationRule(value = "!has(self.minReplicas) || self.minReplicas <= (has(self.maxReplicas) ? self.maxReplicas : 4)",
    message = "minReplicas must not exceed maxReplicas (default 4)")
public record ScalingSpec(
    @JsonPropertyDescription("Fewest workers, also when idle; 0 (default) lets an idle sink scale to zero.") @Min(0) Integer minReplicas,
    @JsonPropertyDescription("Most workers (default 4); never more than the topics' partitions.") @Min(1) Integer maxReplicas,
    @JsonPropertyDescription("Lag (records) one worker is expected to absorb; more lag adds workers (default 10000).") @Min(1) Long lagPerReplica,
    @JsonPropertyDescription("Lag above which an idle sink wakes from zero (default 0: any record).") @Min(0) Long activationLag,
    @JsonPropertyDescription("How long lag must stay at or below activationLag before workers go (default 5m).")
        @Pattern(Durations.PATTERN) @Size(max = Durations.MAX_LENGTH) String idleAfter,
    @JsonPropertyDescription("How long after a scale change the operator waits before scaling down (default 2m).")
        @Pattern(Durations.PATTERN) @Size(max = Durations.MAX_LENGTH) String scaleDownStabilization,
    @JsonPropertyDescription("How often the operator reads the lag (default 15s).")
        @ValidationRule(value = Durations.POSITIVE_RULE, message = Durations.POSITIVE_MESSAGE)
        @Size(max = Durations.MAX_LENGTH) String pollInterval) {

  public static final ScalingSpec DEFAULTS = new ScalingSpec(null, null, null, null, null, null, null);

  public ScalingSpec {
    minReplicas = minReplicas == null ? 0 : minReplicas;
    maxReplicas = maxReplicas == null ? 4 : maxReplicas;
    lagPerReplica = lagPerReplica == null ? 10_000L : lagPerReplica;
    activationLag = activationLag == null ? 0L : activationLag;
    idleAfter = idleAfter == null ? "5m" : idleAfter;
    scaleDownStabilization = scaleDownStabilization == null ? "2m" : scaleDownStabilization;
    pollInterval = pollInterval == null ? "15s" : pollInterval;
  }

  public Duration idleAfterDuration() {
    return Durations.parse(idleAfter);
  }

  public Duration scaleDownStabilizationDuration() {
    return Durations.parse(scaleDownStabilization);
  }

  public Duration pollIntervalDuration() {
    return Durations.parse(pollInterval);
  }
}
