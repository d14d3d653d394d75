package dev.floe.worker.model;

import dev.floe.worker.fold.MergeRule;
import dev.floe.worker.fold.Unchanged;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The expected table, computed the naive way: every change applied to the previous row one at a
 * time, in source order. Independent of the engine's fold (which combines versions before it
 * sees the stored row) so that the two can disagree.
 */
public final class OrdersModel {
  private final Map<Long, Map<String, Object>> rows = new TreeMap<>();
  private boolean evolved;

  public void apply(Step step) {
    if (step instanceof Step.Upsert u) {
      upsert(u);
    } else if (step instanceof Step.Delete d) {
      rows.remove(d.id());
    } else if (step instanceof Step.Rekey k) {
      if (canRekey(k)) {
        Map<String, Object> old = rows.remove(k.id());
        Map<String, Object> row = new HashMap<>();
        for (String column : OrdersTable.columns(true).stream().map(c -> c.name()).toList()) {
          Object v = column.equals("extra") && !evolved ? null : k.values().get(column);
          row.put(column, v == Unchanged.VALUE ? old.get(column) : v);
        }
        row.put("id", k.newId());
        rows.put(k.newId(), row);
      }
    } else if (step instanceof Step.Truncate) {
      rows.clear();
    } else if (step instanceof Step.EvolveSchema) {
      evolved = true;
    }
  }

  /** Debezium emits a key change only for an existing row moving to a free key. */
  public boolean canRekey(Step.Rekey k) {
    return rows.containsKey(k.id()) && !rows.containsKey(k.newId());
  }

  private void upsert(Step.Upsert u) {
    Map<String, Object> old = rows.get(u.id());
    Map<String, Object> row = new HashMap<>();
    for (String column : OrdersTable.columns(true).stream().map(c -> c.name()).toList()) {
      Object v = column.equals("extra") && !evolved ? null : u.values().get(column);
      Object before = old == null ? null : old.get(column);
      row.put(column, merge(OrdersTable.rule(column), old != null, before, v));
    }
    row.put("id", u.id());
    rows.put(u.id(), row);
  }

  private static Object merge(MergeRule rule, boolean existed, Object before, Object v) {
    if (v == Unchanged.VALUE) {
      return existed ? before : null;
    }
    if (!existed) {
      return v;
    }
    switch (rule) {
      case LAST:
        return v;
      case LAST_NON_NULL:
        return v != null ? v : before;
      case FIRST:
        return before != null ? before : v;
      default:
        break;
    }
    if (before == null) {
      return v;
    }
    if (v == null) {
      return before;
    }
    return switch (rule) {
      case SUM -> before instanceof BigDecimal b ? b.add((BigDecimal) v) : ((Number) before).longValue() + ((Number) v).longValue();
      case MIN -> ((Comparable<Object>) before).compareTo(v) <= 0 ? before : v;
      case MAX -> ((Comparable<Object>) before).compareTo(v) >= 0 ? before : v;
      default -> throw new IllegalStateException();
    };
  }

  /** The expected rows by key, values normalised like {@link #normalise}. */
  public Map<Long, Map<String, Object>> expected() {
    Map<Long, Map<String, Object>> out = new TreeMap<>();
    rows.forEach((id, row) -> {
      Map<String, Object> n = new TreeMap<>();
      row.forEach((k, v) -> n.put(k, normalise(v)));
      out.put(id, n);
    });
    return out;
  }

  /** Integers as longs and decimals without trailing-zero differences, so widened columns compare. */
  public static Object normalise(Object v) {
    if (v instanceof Integer i) {
      return i.longValue();
    }
    if (v instanceof BigDecimal d) {
      return d.setScale(2);
    }
    return v;
  }
}
