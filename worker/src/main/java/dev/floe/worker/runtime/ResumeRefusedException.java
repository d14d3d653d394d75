package dev.floe.worker.runtime;

import java.util.List;

/**
 * The worker stops rather than resume partitions where it would silently skip or re-read
 * records; the message names the partitions and what to do. Retrying cannot cure it: a person must
 * choose (re-snapshot, or say where to start).
 */
public class ResumeRefusedException extends RuntimeException {
  private final StartPosition.Kind kind;

  public ResumeRefusedException(StartPosition.Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public StartPosition.Kind kind() {
    return kind;
  }

  /** The stop for partitions whose offsets lie outside the log. */
  static ResumeRefusedException outOfRange(String table, List<String> problems) {
    return new ResumeRefusedException(StartPosition.Kind.OUT_OF_RANGE, "cannot resume table " + table
        + ": its offsets lie outside what Kafka holds, so going on would silently skip or re-read records: "
        + String.join("; ", problems) + ". The table no longer follows the source: re-snapshot it. Drop the table (or name a new one"
        + " in table.name), set source.startFrom: latest, start the worker, then have Debezium snapshot the source again"
        + " (an incremental snapshot signal, or a new connector): the worker re-creates the table from that snapshot on.");
  }

  /** The stop for partitions the table holds nothing for while the consumer group has read them. */
  static ResumeRefusedException startFromRequired(String table, String group, List<String> partitions) {
    return new ResumeRefusedException(StartPosition.Kind.START_FROM_REQUIRED, "table " + table + " holds no offsets for "
        + String.join(", ", partitions) + ", but the consumer group " + group + " has read them: the table was dropped or re-created,"
        + " or the warehouse is new, under a group that already read the topic. Resuming at the group's offsets would silently skip"
        + " everything it read before. Say where to start with source.startFrom: earliest (re-read all that Kafka still holds)"
        + " or group (resume at the group's offsets: right only if the table already has what the group read), or latest;"
        + " or give the sink a new source.groupId.");
  }
}
