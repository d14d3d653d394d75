package dev.floe.worker.fold;

import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.EventSchema;
import dev.floe.worker.decode.Op;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.RejectedRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;

/**
 * Folds a batch of change events into one change per key, in source order. A key's events share a
 * partition, so offset order is source order; a truncate is ordered against other partitions by
 * the source LSN, and events older than the newest truncate (in this batch or recorded in the
 * table as the watermark) are dropped.
 */
public final class BatchFolder {
  private BatchFolder() {}

  /**
   * A change event already projected onto the table's columns, with its key; for the halves of a
   * primary-key update, the key the row came from (create) or goes to (delete).
   */
  public record Projected(ChangeEvent event, RowKey key, Object[] row, RowKey previousKey, RowKey nextKey) {

    public Projected(ChangeEvent event, RowKey key, Object[] row) {
      this(event, key, row, null, null);
    }

    public Projected(ChangeEvent event, RowKey key, Object[] row, RowKey previousKey) {
      this(event, key, row, previousKey, null);
    }
  }

  /** From this many events on, they are projected on every core before they fold: projecting is most of a fold's work. */
  static final int PARALLEL_FROM = 20_000;

  /**
   * @param events the batch's events in any order across partitions, offset order within one
   * @param project projects an upsert or delete onto the table's columns, into a row array the
   *     fold reads and never writes (it may be the event's own values: events are folded again on
   *     a retry); throws {@link IllegalArgumentException} for a record that does not fit the
   *     table. It is called from several threads at once, but only after it has projected an
   *     upsert of each schema of the batch on the calling thread (so per-schema caches are filled
   *     and then only read).
   * @param rules the merge rule of each table column
   * @param watermark the truncate LSN the table already holds, or null
   */
  public static FoldedBatch fold(
      List<ChangeEvent> events, Function<ChangeEvent, Projected> project, MergeRule[] rules, Long watermark) {
    return fold(events, project, schema -> false, rules, watermark, PARALLEL_FROM);
  }

  /**
   * As {@link #fold(List, Function, MergeRule[], Long)}, projecting the events of a schema that
   * {@code cheap} accepts (asked once an upsert of it was projected) as they fold, on this thread:
   * projecting them on every core first would hold a projection per event until it folds, for
   * little work saved.
   */
  public static FoldedBatch fold(List<ChangeEvent> events, Function<ChangeEvent, Projected> project, Predicate<EventSchema> cheap,
      MergeRule[] rules, Long watermark) {
    return fold(events, project, cheap, rules, watermark, PARALLEL_FROM);
  }

  /** As {@link #fold(List, Function, MergeRule[], Long)}, projecting on every core from {@code parallelFrom} events. */
  static FoldedBatch fold(
      List<ChangeEvent> events, Function<ChangeEvent, Projected> project, MergeRule[] rules, Long watermark, int parallelFrom) {
    return fold(events, project, schema -> false, rules, watermark, parallelFrom);
  }

  static FoldedBatch fold(List<ChangeEvent> events, Function<ChangeEvent, Projected> project, Predicate<EventSchema> cheap,
      MergeRule[] rules, Long watermark, int parallelFrom) {
    List<ChangeEvent> ordered = inLogOrder(events);
    BatchSurvey survey = BatchSurvey.of(ordered, watermark, project, cheap, ordered.size() >= parallelFrom);
    Long truncateLsn = survey.truncateLsn;
    boolean truncates = survey.truncates();
    Map<TopicPartition, Long> truncateOffsets = survey.truncateOffsets;
    Object[] projected = survey.projected;

    // Sized for a key per event up front: grown from empty it would rehash ~20 times over a large batch.
    Map<RowKey, KeyFold> keys = new LinkedHashMap<>((int) Math.min(1 << 30, ordered.size() * 4L / 3 + 1));
    List<RejectedRecord> rejected = new ArrayList<>();
    int superseded = 0;
    List<FoldedBatch.KeyMove> arrivals = new ArrayList<>();
    List<FoldedBatch.KeyMove> departures = new ArrayList<>();
    for (int i = 0; i < ordered.size(); i++) {
      ChangeEvent e = ordered.get(i);
      if (e.op() == Op.TRUNCATE) {
        continue;
      }
      if (isBeforeTruncate(e, truncateLsn, truncateOffsets)) {
        superseded++;
        continue;
      }
      Projected p;
      try {
        p = projected == null || projected[i] == null ? project.apply(e) : projectedAt(projected, i);
      } catch (IllegalArgumentException ex) {
        rejected.add(new RejectedRecord(e.record(), ex.getMessage()));
        continue;
      }
      // When the batch truncates, the table is emptied first: nothing stored survives.
      boolean emptied = truncates;
      KeyFold fold = keys.computeIfAbsent(p.key(), k -> new KeyFold(emptied));
      if (e.op() == Op.DELETE) {
        fold.delete(e.lsn());
        if (p.nextKey() != null && e.lsn() != null) {
          departures.add(new FoldedBatch.KeyMove(p.key(), p.nextKey(), e.lsn()));
        }
      } else {
        if (p.previousKey() != null) {
          fold.movedFrom(p.previousKey(), e.lsn());
          if (e.lsn() != null) {
            arrivals.add(new FoldedBatch.KeyMove(p.previousKey(), p.key(), e.lsn()));
          }
        }
        try {
          fold.upsert(p.row(), rules);
        } catch (ArithmeticException | IllegalArgumentException ex) {
          rejected.add(new RejectedRecord(e.record(), "merge rule failed: " + ex.getMessage()));
        }
      }
    }
    return new FoldedBatch(keys, truncates, truncateLsn, superseded, rejected, arrivals, departures);
  }

  /** Takes the projection at {@code i} out of the array: the projections folded already can be collected while the rest fold. */
  private static Projected projectedAt(Object[] projected, int i) {
    Object p = projected[i];
    projected[i] = null;
    if (p instanceof IllegalArgumentException ex) {
      throw ex;
    }
    return (Projected) p;
  }

  /**
   * The events in log order (topic, partition, offset). A batch holds each partition's events in
   * offset order, as they were polled, so grouping them by partition, stably, and ordering the
   * partitions is that order in one pass; a batch that does not (any offset not above the one
   * before it in its partition) is sorted instead.
   */
  static List<ChangeEvent> inLogOrder(List<ChangeEvent> events) {
    return inLogOrder(events, ChangeEvent::record);
  }

  /** As {@link #inLogOrder(List)} for any items of records ({@code record} gives each one's). */
  public static <T> List<T> inLogOrder(List<T> events, Function<T, RawRecord> record) {
    Map<TopicPartition, List<T>> byPartition = new HashMap<>();
    TopicPartition current = null;
    List<T> run = null;
    for (T e : events) {
      TopicPartition tp = record.apply(e).topicPartition();
      if (tp != current) { // records come in runs of one partition, sharing its TopicPartition
        current = tp;
        run = byPartition.computeIfAbsent(tp, k -> new ArrayList<>());
      }
      if (!run.isEmpty() && record.apply(run.get(run.size() - 1)).offset() >= record.apply(e).offset()) {
        List<T> sorted = new ArrayList<>(events);
        sorted.sort((a, b) -> LOG_ORDER.compare(record.apply(a), record.apply(b)));
        return sorted;
      }
      run.add(e);
    }
    List<TopicPartition> partitions = new ArrayList<>(byPartition.keySet());
    partitions.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
    List<T> ordered = new ArrayList<>(events.size());
    for (TopicPartition tp : partitions) {
      ordered.addAll(byPartition.get(tp));
    }
    return ordered;
  }

  /**
   * Topic, partition, offset. Records of one partition share its TopicPartition where they were
   * polled together, and batches are long runs of one partition: compared by reference first.
   */
  private static final Comparator<RawRecord> LOG_ORDER = (x, y) -> {
    if (x.topicPartition() != y.topicPartition()) {
      int c = x.topic().compareTo(y.topic());
      if (c == 0) {
        c = Integer.compare(x.partition(), y.partition());
      }
      if (c != 0) {
        return c;
      }
    }
    return Long.compare(x.offset(), y.offset());
  };

  private static boolean isBeforeTruncate(ChangeEvent e, Long truncateLsn, Map<TopicPartition, Long> truncateOffsets) {
    if (truncateLsn == null && truncateOffsets.isEmpty()) {
      return false; // the batch truncates nothing, and the table held no truncate
    }
    if (e.lsnOrNone() != ChangeEvent.NO_LSN && truncateLsn != null) {
      return e.lsnOrNone() < truncateLsn;
    }
    Long at = truncateOffsets.get(e.record().topicPartition());
    return at != null && e.record().offset() < at;
  }
}
