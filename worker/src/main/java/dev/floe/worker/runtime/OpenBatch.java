package dev.floe.worker.runtime;

import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.decode.RawRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * The records polled since the last commit. It closes on the first of the commit interval, the
 * record count and the byte count; a revoked partition's records leave it (their next owner
 * re-reads them from the table's offsets).
 */
public final class OpenBatch {
  private final CommitSpec policy;
  private final List<RawRecord> records = new ArrayList<>();
  private long bytes;
  private long openedAtNanos;

  public OpenBatch(CommitSpec policy) {
    this.policy = policy;
  }

  public void add(RawRecord r, long nowNanos) {
    if (records.isEmpty()) {
      openedAtNanos = nowNanos;
    }
    records.add(r);
    bytes += r.sizeInBytes();
  }

  /** Whether the batch should be committed now. */
  public boolean isDue(long nowNanos) {
    if (records.isEmpty()) {
      return false;
    }
    return records.size() >= policy.maxRecords()
        || bytes >= policy.maxBytes()
        || Duration.ofNanos(nowNanos - openedAtNanos).compareTo(policy.intervalDuration()) >= 0;
  }

  public void drop(Collection<TopicPartition> partitions) {
    records.removeIf(r -> partitions.contains(r.topicPartition()));
    bytes = records.stream().mapToLong(RawRecord::sizeInBytes).sum();
  }

  public List<RawRecord> records() {
    return records;
  }

  public boolean isEmpty() {
    return records.isEmpty();
  }

  public long bytes() {
    return bytes;
  }

  public void clear() {
    records.clear();
    bytes = 0;
  }
}
