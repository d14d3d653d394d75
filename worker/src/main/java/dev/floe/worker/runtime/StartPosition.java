package dev.floe.worker.runtime;

import dev.floe.worker.config.StartFrom;
import org.apache.kafka.common.TopicPartition;

/**
 * Decides where a worker resumes one partition on assignment: at the table's offset while the log
 * still holds it, at {@code source.startFrom} where the table holds nothing; or refuses, where
 * resuming would silently skip or re-read records. Pure: the runner reads the inputs from the table
 * and Kafka.
 */
public final class StartPosition {
  private StartPosition() {}

  /** What to do with one partition. */
  public sealed interface Decision permits Seek, FromBeginning, FromEnd, Refused {}

  /** Resume at this offset. */
  public record Seek(long offset) implements Decision {}

  /** Start at the log's start (Kafka resolves it at fetch time, so retention racing us cannot fail the start). */
  public record FromBeginning() implements Decision {}

  /** Start at the log's end. */
  public record FromEnd() implements Decision {}

  /** Do not resume: {@code problem} says what is wrong with this partition. */
  public record Refused(Kind kind, TopicPartition partition, String problem) implements Decision {}

  /** Why a partition is refused. */
  public enum Kind {
    /** Its offset lies outside the records the log holds: the table no longer follows the topic. */
    OUT_OF_RANGE,
    /** The table holds nothing for it but the consumer group has read it: the sink must say where to start. */
    START_FROM_REQUIRED
  }

  /**
   * @param tableNext the next offset the table holds for the partition, or -1 for none
   * @param groupCommitted the consumer group's committed offset, or null for none
   * @param logStart the log's first offset, or null where it could not be read (the fetch then checks)
   * @param logEnd the log's end offset, or null where it could not be read
   * @param startFrom what the sink says to do where the table holds nothing, or null when unset
   */
  public static Decision decide(TopicPartition tp, long tableNext, Long groupCommitted, Long logStart, Long logEnd, StartFrom startFrom) {
    if (tableNext >= 0) {
      return inRange(tp, tableNext, "the table holds offset", logStart, logEnd);
    }
    if (startFrom == null) {
      // A brand-new sink (no group offsets either) just starts at the beginning; a table that lost
      // its offsets under a group that read the partition must not resume where the group was.
      if (groupCommitted == null) {
        return new FromBeginning();
      }
      return new Refused(Kind.START_FROM_REQUIRED, tp, tp + " (the group committed " + groupCommitted + ")");
    }
    return switch (startFrom) {
      case EARLIEST -> new FromBeginning();
      case LATEST -> new FromEnd();
      case GROUP -> groupCommitted == null ? new FromBeginning() : inRange(tp, groupCommitted, "the group's committed offset is", logStart, logEnd);
    };
  }

  private static Decision inRange(TopicPartition tp, long offset, String what, Long logStart, Long logEnd) {
    if (logStart != null && offset < logStart) {
      return new Refused(Kind.OUT_OF_RANGE, tp, tp + ": " + what + " " + offset + ", but the log holds only [" + logStart + ", " + logEnd
          + "): retention deleted offsets " + offset + ".." + (logStart - 1) + " before the table saw them");
    }
    if (logEnd != null && offset > logEnd) {
      return new Refused(Kind.OUT_OF_RANGE, tp, tp + ": " + what + " " + offset + ", but the log ends at " + logEnd
          + ": the topic was re-created or truncated, so these offsets name other records");
    }
    return new Seek(offset);
  }
}
