package dev.floe.worker.runtime;

import dev.floe.worker.config.CommitSpec;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.SharedSchemas;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The records polled since the last commit. It closes on the first of the commit interval, the
 * record count and the byte count. It holds its record limit exactly: a poll that brings more
 * leaves the rest waiting, in order, for the next batch. The limit is {@code maxRecords}, or
 * smaller for the first batches of a worker that ramps up ({@link BatchRamp}). A revoked partition's records leave it,
 * waiting or not (their next owner re-reads them from the table's offsets). Records are held with
 * their repeated JsonConverter schema shared ({@link SharedSchemas}), and the byte count is what
 * they hold of their own: key and value less that schema.
 */
public final class OpenBatch {
  private final CommitSpec policy;
  private final List<RawRecord> records = new ArrayList<>();
  private final Deque<RawRecord> waiting = new ArrayDeque<>();
  private final SharedSchemas schemas;
  private final BatchRamp ramp;
  /** The record limit of this batch. */
  private int cap;
  /** Records held per partition, in the batch or waiting: the lag read every few seconds asks for them. */
  private final Map<TopicPartition, Long> held = new HashMap<>();
  private long bytes;
  private long openedAtNanos;

  public OpenBatch(CommitSpec policy) {
    this(policy, new SharedSchemas());
  }

  /** @param schemas the schemas the consumer's values were held with, if it held them ({@link SharedSchemas#hold}) */
  public OpenBatch(CommitSpec policy, SharedSchemas schemas) {
    this(policy, schemas, BatchRamp.none(policy.maxRecords()));
  }

  /** @param ramp the record limits of the first batches (each {@link #clear} takes the next) */
  OpenBatch(CommitSpec policy, SharedSchemas schemas, BatchRamp ramp) {
    this.policy = policy;
    this.schemas = schemas;
    this.ramp = ramp;
    this.cap = ramp.first();
  }

  /** Adds a polled record; returns it as held (its schema shared), the instance the batch hands on. */
  public RawRecord add(RawRecord polled, long nowNanos) {
    RawRecord r = schemas.share(polled);
    held.merge(r.topicPartition(), 1L, Long::sum);
    if (records.size() >= cap) {
      waiting.add(r);
      return r;
    }
    if (records.isEmpty()) {
      openedAtNanos = nowNanos;
    }
    records.add(r);
    bytes += r.heldBytes();
    return r;
  }

  /** Whether the batch should be committed now. */
  public boolean isDue(long nowNanos) {
    if (records.isEmpty()) {
      return false;
    }
    return records.size() >= cap
        || bytes >= policy.maxBytes()
        || Duration.ofNanos(nowNanos - openedAtNanos).compareTo(policy.intervalDuration()) >= 0;
  }

  public void drop(Collection<TopicPartition> partitions) {
    records.removeIf(r -> partitions.contains(r.topicPartition()));
    waiting.removeIf(r -> partitions.contains(r.topicPartition()));
    partitions.forEach(held::remove);
    bytes = records.stream().mapToLong(RawRecord::heldBytes).sum();
  }

  /** The records of this batch (not those waiting for the next). */
  public List<RawRecord> records() {
    return records;
  }

  /** Polled and not committed, in the batch or waiting: what the lag of a partition still includes. */
  public long uncommitted(TopicPartition tp) {
    return held.getOrDefault(tp, 0L);
  }

  /** Whether nothing is polled and uncommitted, in the batch or waiting. */
  public boolean isEmpty() {
    return records.isEmpty() && waiting.isEmpty();
  }

  public long bytes() {
    return bytes;
  }

  /** The record limit of this batch. */
  int recordLimit() {
    return cap;
  }

  /** After a hand-over: the next batch (its limit the ramp's next) opens with the records that were waiting, as many as it holds. */
  public void clear() {
    cap = ramp.next(cap);
    records.clear();
    held.clear();
    bytes = 0;
    waiting.forEach(r -> held.merge(r.topicPartition(), 1L, Long::sum));
    long now = System.nanoTime();
    while (!waiting.isEmpty() && records.size() < cap) {
      RawRecord r = waiting.poll();
      if (records.isEmpty()) {
        openedAtNanos = now;
      }
      records.add(r); // already held (schema shared) and counted
      bytes += r.heldBytes();
    }
  }

  /** Forgets every polled record, waiting or not: they are re-read from the tables' offsets. */
  public void abandon() {
    records.clear();
    waiting.clear();
    held.clear();
    bytes = 0;
  }
}
