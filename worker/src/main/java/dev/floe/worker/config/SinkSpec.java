package dev.floe.worker.config;

import io.fabric8.generator.annotation.Required;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * One sink: which change topics to read, which Iceberg table to keep equal to the source, and how.
 * It is the worker's config file and, wrapped by the operator, the spec of a {@code CdcSink}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SinkSpec(
    @JsonPropertyDescription("The Kafka topics that Debezium writes the source table's changes to.")
        @Required SourceSpec source,
    @JsonPropertyDescription("The Iceberg table kept equal to the source, and its catalog.")
        @Required TableSpec table,
    @JsonPropertyDescription("When a batch of changes is closed and committed as one snapshot.")
        CommitSpec commit,
    @JsonPropertyDescription("Where records that cannot be decoded or applied are sent, with the reason.")
        DeadLetterSpec deadLetter,
    @JsonPropertyDescription("What to do with a record that cannot be applied: dead-letter (default) or fail.")
        OnError onError,
    @JsonPropertyDescription("Table maintenance by floe compact: rewrite, expire, orphans, manifests.")
        CompactionSpec compaction) {

  public SinkSpec {
    commit = commit == null ? CommitSpec.DEFAULTS : commit;
    onError = onError == null ? OnError.DEAD_LETTER : onError;
    compaction = compaction == null ? CompactionSpec.DEFAULTS : compaction;
  }

  public SinkSpec(SourceSpec source, TableSpec table, CommitSpec commit, DeadLetterSpec deadLetter, OnError onError) {
    this(source, table, commit, deadLetter, onError, null);
  }

  /** The same sink writing to another table (one that its table name template routes to). */
  public SinkSpec forTable(String tableName) {
    return new SinkSpec(source, table.withName(tableName), commit, deadLetter, onError, compaction);
  }

  /** The identity under which this sink records its offsets in the table: its consumer group. */
  public String sinkId() {
    return source.groupId();
  }
}
