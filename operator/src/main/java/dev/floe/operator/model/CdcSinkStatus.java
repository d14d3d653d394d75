package dev.floe.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** What the operator observed of a sink: health conditions, workers, lag, scaling and compaction. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CdcSinkStatus {
  @JsonPropertyDescription("The metadata.generation this status describes.")
  public Long observedGeneration;

  @JsonPropertyDescription("Ready, Reconciling, Stalled (kstatus) and Scaling, as Kubernetes conditions.")
  public List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("Workers the Deployment runs now.")
  public Integer replicas;

  @JsonPropertyDescription("Workers the lag calls for.")
  public Integer desiredReplicas;

  @JsonPropertyDescription("Workers running / workers the lag calls for, e.g. 1/2: the Replicas column of kubectl get.")
  public String replicasSummary;

  @JsonPropertyDescription("Records not yet applied: end offsets minus the consumer group's committed offsets.")
  public LagStatus lag;

  @JsonPropertyDescription("Last time the lag was above the activation lag (RFC 3339).")
  public String lastActiveTime;

  @JsonPropertyDescription("Last time the lag asked for at least the workers running (RFC 3339); scale-down waits for a stabilization window after it.")
  public String lastBusyTime;

  @JsonPropertyDescription("Last time the worker count changed (RFC 3339).")
  public String lastScaleTime;

  @JsonPropertyDescription("The newest snapshot the workers committed to the table, as they stamp it on the consumer group's offsets.")
  public CommitStatus lastCommit;

  @JsonPropertyDescription("The newest finished compaction Job and its report.")
  public CompactionStatus lastCompaction;

  /** The lag of the sink's consumer group. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class LagStatus {
    @JsonPropertyDescription("Total lag over all partitions, in records.")
    public Long total;

    @JsonPropertyDescription("Lag per topic-partition (topic-partition: records).")
    public java.util.Map<String, Long> partitions;

    @JsonPropertyDescription("Partitions of the sink's topics.")
    public Integer partitionCount;

    @JsonPropertyDescription("When the lag was read (RFC 3339).")
    public String readTime;

    @JsonPropertyDescription("Why the last lag read failed; the lag above is older then, and replicas are held.")
    public String error;
  }

  /** The newest snapshot commit of the sink's workers. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class CommitStatus {
    @JsonPropertyDescription("When a worker committed it (RFC 3339).")
    public String time;

    @JsonPropertyDescription("The Iceberg snapshot id.")
    public Long snapshotId;
  }

  /** The result of the newest finished compaction Job. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class CompactionStatus {
    @JsonPropertyDescription("Name of the Job.")
    public String job;

    @JsonPropertyDescription("Succeeded or Failed.")
    public String result;

    @JsonPropertyDescription("When the Job finished (RFC 3339).")
    public String time;

    @JsonPropertyDescription("The compaction report (JSON) the Job left as its termination message, when it did.")
    public String report;
  }
}
