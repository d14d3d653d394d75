package dev.floe.worker.fold;

import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.EventSchema;
import dev.floe.worker.decode.Op;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.apache.kafka.common.TopicPartition;

/**
 * What the fold must know of a batch before it folds it, learnt in one pass over the batch's
 * events: the truncates (the newest LSN, and the last truncate's offset in each partition), and,
 * for a batch projected on every core, the first upsert of each schema projected on the calling
 * thread (so the projection's per-schema caches are filled before other threads read them), then
 * the events of the schemas that are not cheap projected on every core. A batch of 500k events
 * does not fit in a cache: every pass over it is a cache miss per event (the costly-schema pass
 * alone was 7.6% of the applying thread's samples on full-size {@code orders}, when these were three).
 */
final class BatchSurvey {
  private static final Object NO_RUN = new Object();
  /** The newest truncate LSN, of the table's watermark and of this batch; null when neither has one. */
  final Long truncateLsn;
  /** Per partition, the offset of its last truncate in this batch. */
  final Map<TopicPartition, Long> truncateOffsets;
  /**
   * Each event's projection, or the {@link IllegalArgumentException} projecting it threw, by position
   * in the batch; null where the fold projects the event itself, or null as a whole when it projects
   * them all.
   */
  final Object[] projected;

  private BatchSurvey(Long truncateLsn, Map<TopicPartition, Long> truncateOffsets, Object[] projected) {
    this.truncateLsn = truncateLsn;
    this.truncateOffsets = truncateOffsets;
    this.projected = projected;
  }

  /** Whether the batch holds a truncate: every truncate leaves its partition's offset. */
  boolean truncates() {
    return !truncateOffsets.isEmpty();
  }

  /**
   * @param ordered the batch's events in log order
   * @param watermark the truncate LSN the table already holds, or null
   * @param onEveryCore whether events of costly schemas are projected on every core before they fold
   */
  static BatchSurvey of(List<ChangeEvent> ordered, Long watermark, Function<ChangeEvent, BatchFolder.Projected> project,
      Predicate<EventSchema> cheap, boolean onEveryCore) {
    Long truncateLsn = watermark;
    Map<TopicPartition, Long> truncateOffsets = new HashMap<>();
    Object[] out = onEveryCore ? new Object[ordered.size()] : null;
    Set<EventSchema> schemas = Collections.newSetFromMap(new IdentityHashMap<>());
    Set<EventSchema> upserted = Collections.newSetFromMap(new IdentityHashMap<>());
    // events come in long runs of one schema: the sets are asked once per run (a schema may be null)
    Object run = NO_RUN;
    Object upsertRun = NO_RUN;
    for (int i = 0; i < ordered.size(); i++) {
      ChangeEvent e = ordered.get(i);
      if (e.op() == Op.TRUNCATE) {
        truncateOffsets.merge(e.record().topicPartition(), e.record().offset(), Math::max);
        if (e.lsnOrNone() != ChangeEvent.NO_LSN && (truncateLsn == null || e.lsnOrNone() > truncateLsn)) {
          truncateLsn = e.lsnOrNone();
        }
        continue;
      }
      if (!onEveryCore) {
        continue;
      }
      EventSchema schema = e.schema();
      if (schema != run) {
        run = schema;
        schemas.add(schema);
      }
      if (e.op() == Op.UPSERT && schema != upsertRun) {
        upsertRun = schema;
        if (upserted.add(schema)) {
          out[i] = projectOrFailure(e, project);
        }
      }
    }
    return new BatchSurvey(truncateLsn, truncateOffsets, onEveryCore ? projectCostly(ordered, project, cheap, out, schemas) : null);
  }

  /**
   * The events of the schemas {@code cheap} refuses (asked once every schema's first upsert was
   * projected) projected on every core into {@code out}; null when there are none: the fold then
   * projects every event as it folds it.
   */
  private static Object[] projectCostly(List<ChangeEvent> ordered, Function<ChangeEvent, BatchFolder.Projected> project,
      Predicate<EventSchema> cheap, Object[] out, Set<EventSchema> schemas) {
    Set<EventSchema> costly = Collections.newSetFromMap(new IdentityHashMap<>());
    for (EventSchema s : schemas) {
      if (!cheap.test(s)) {
        costly.add(s);
      }
    }
    if (costly.isEmpty()) {
      return null;
    }
    IntStream.range(0, out.length).parallel().forEach(i -> {
      ChangeEvent e = ordered.get(i);
      if (out[i] == null && e.op() != Op.TRUNCATE && costly.contains(e.schema())) {
        out[i] = projectOrFailure(e, project);
      }
    });
    return out;
  }

  private static Object projectOrFailure(ChangeEvent e, Function<ChangeEvent, BatchFolder.Projected> project) {
    try {
      return project.apply(e);
    } catch (IllegalArgumentException ex) {
      return ex;
    }
  }
}
