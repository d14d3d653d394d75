package dev.floe.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.config.CompactionSpec;
import dev.floe.worker.config.DeadLetterSpec;
import dev.floe.worker.config.OnError;
import dev.floe.worker.config.SinkSpec;
import dev.floe.worker.config.SourceSpec;
import dev.floe.worker.config.TableSpec;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * The spec of a {@code CdcSink}: the worker's own sink config (the same model as {@code floe run
 * --config}), plus how the operator scales and dresses the worker pods.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
// onError: dead-letter is the default, and without a topic the first bad record would stop the sink
@ValidationRule(value = "(has(self.onError) && self.onError == 'fail') || (has(self.deadLetter) && has(self.deadLetter.topic))",
    message = "deadLetter.topic is required with onError: dead-letter (the default); or set onError: fail")
public record CdcSinkSpec(
    @JsonPropertyDescription("The Kafka topics that Debezium writes the source table's changes to.") @Required SourceSpec source,
    @JsonPropertyDescription("The Iceberg table kept equal to the source, and its catalog.") @Required TableSpec table,
    @JsonPropertyDescription("When a batch of changes is closed and committed as one snapshot.") CommitSpec commit,
    @JsonPropertyDescription("Where records that cannot be decoded or applied are sent, with the reason.") DeadLetterSpec deadLetter,
    @JsonPropertyDescription("What to do with a record that cannot be applied: dead-letter (default) or fail.") OnError onError,
    @JsonPropertyDescription("Table maintenance: the schedule of the compaction CronJob and what floe compact does.") CompactionSpec compaction,
    @JsonPropertyDescription("How many workers run, following the consumer group's lag, down to zero when idle.") ScalingSpec scaling,
    @JsonPropertyDescription("The worker pods: image, resources, environment and placement.") WorkerPodSpec worker) {

  /** The worker's config: what the ConfigMap holds and {@code floe run} reads. */
  public SinkSpec sinkSpec() {
    return new SinkSpec(source, table, commit, deadLetter, onError, compaction);
  }

  /** The scaling policy, defaults filled in. */
  public ScalingSpec scalingOrDefaults() {
    return scaling == null ? ScalingSpec.DEFAULTS : scaling;
  }

  /** The worker pod settings, defaults filled in. */
  public WorkerPodSpec workerOrDefaults() {
    return worker == null ? WorkerPodSpec.DEFAULTS : worker;
  }
}
