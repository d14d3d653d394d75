package dev.floe.worker.fold;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.math.BigDecimal;
import java.util.Comparator;

/**
 * How successive versions of one column combine. Each rule is associative over versions, so a batch
 * folds to one partial version that is later combined with the stored row: {@code
 * combine(stored, fold(batch)) == fold(stored, batch...)}. {@link Unchanged#VALUE} (a TOAST
 * placeholder, or "no information") is the identity of every rule.
 */
public enum MergeRule {
  /** The newest value, null included. */
  @JsonProperty("last")
  LAST,
  /** The newest non-null value. */
  @JsonProperty("last-non-null")
  LAST_NON_NULL,
  /** The sum of all non-null values since the row was (re)created. */
  @JsonProperty("sum")
  SUM,
  /** The smallest non-null value since the row was (re)created. */
  @JsonProperty("min")
  MIN,
  /** The largest non-null value since the row was (re)created. */
  @JsonProperty("max")
  MAX,
  /** The first non-null value since the row was (re)created. */
  @JsonProperty("first")
  FIRST;

  /** Combines an older and a newer version of a column. */
  public Object combine(Object older, Object newer) {
    if (newer == Unchanged.VALUE) {
      return older;
    }
    if (older == Unchanged.VALUE) {
      return newer;
    }
    return switch (this) {
      case LAST -> newer;
      case LAST_NON_NULL -> newer != null ? newer : older;
      case FIRST -> older != null ? older : newer;
      case SUM -> older == null ? newer : newer == null ? older : add(older, newer);
      case MIN -> older == null ? newer : newer == null ? older : compare(older, newer) <= 0 ? older : newer;
      case MAX -> older == null ? newer : newer == null ? older : compare(older, newer) >= 0 ? older : newer;
    };
  }

  /** Whether the result depends on the stored value even when the batch gave a concrete value. */
  public boolean readsStoredValue() {
    return this != LAST;
  }

  private static Object add(Object a, Object b) {
    if (a instanceof Integer x && b instanceof Integer y) {
      return Math.addExact(x, y);
    }
    if (a instanceof Long x && b instanceof Long y) {
      return Math.addExact(x, y);
    }
    if (a instanceof Double x && b instanceof Double y) {
      return x + y;
    }
    if (a instanceof Float x && b instanceof Float y) {
      return x + y;
    }
    if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
      return x.add(y);
    }
    throw new IllegalArgumentException(
        "sum is not defined for " + a.getClass().getSimpleName() + " and " + b.getClass().getSimpleName());
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    if (a instanceof Comparable ca && a.getClass() == b.getClass()) {
      return ca.compareTo(b);
    }
    return Comparator.comparing(Object::toString).compare(a, b);
  }
}
