package dev.floe.worker.engine;

import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.EventSchema;
import dev.floe.worker.decode.Op;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Each event schema of a batch once, with the lowest LSN seen under it (what evolving the table to
 * it needs), gathered as the batch's events are collected: a batch holds one or a few schemas,
 * shared by its events, in long runs, and a pass of its own over 500k events is a cache miss per
 * event. Truncates and events without a schema are not counted.
 */
final class SchemaSurvey {
  /** No event of a schema carried an LSN (sources without one): larger than any LSN, so one that does wins. */
  static final long NONE_SEEN = Long.MAX_VALUE;

  private final Map<EventSchema, Long> lowest = new IdentityHashMap<>();
  private EventSchema current;
  private long currentMin = NONE_SEEN;

  void add(ChangeEvent e) {
    if (e.op() != Op.TRUNCATE) {
      add(e.schema(), e.lsnOrNone());
    }
  }

  /** An upsert or delete of {@code schema} at {@code lsnOrNone} ({@link ChangeEvent#NO_LSN} when it has none). */
  void add(EventSchema schema, long lsnOrNone) {
    if (schema != current) {
      flush();
      current = schema;
      currentMin = NONE_SEEN;
    }
    if (lsnOrNone != ChangeEvent.NO_LSN) {
      currentMin = Math.min(currentMin, lsnOrNone);
    }
  }

  /** Per schema, the lowest LSN seen under it, or {@link #NONE_SEEN}. */
  Map<EventSchema, Long> lowestLsns() {
    flush();
    return lowest;
  }

  private void flush() {
    if (current != null) {
      lowest.merge(current, currentMin, Math::min);
    }
  }
}
