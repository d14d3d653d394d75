package dev.floe.worker.commit;

import org.apache.kafka.common.TopicPartition;

/**
 * A record of one partition that a table could not take (or that an operator skipped): where, and
 * why. A table keeps the points its sink stopped at, so that a restart that meets the record again
 * knows it is already in the dead-letter topic.
 */
public record StopPoint(TopicPartition partition, long offset, String reason) {
  @Override
  public String toString() {
    return partition + "@" + offset + ": " + reason;
  }
}
