package dev.floe.worker.model;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * How one batch of the source reaches the engine: each partition delivers its records in offset
 * order, except that {@code heldBack} of its newest ones (all when larger than what it has) wait for
 * a later delivery, as a consumer lagging on that partition would. With {@code restartBefore} the
 * engine is thrown away and a new one started from the table before this delivery (a crash).
 */
public record Delivery(Map<Integer, Integer> heldBack, boolean restartBefore) {
  /** Holds a partition's records until a later delivery, however many it has. */
  public static final int ALL = Integer.MAX_VALUE;

  public Delivery {
    Map<Integer, Integer> held = new TreeMap<>(heldBack);
    held.values().removeIf(n -> n <= 0); // holding nothing back is lock-step
    heldBack = Map.copyOf(held);
  }

  /** Every partition delivers everything it has, to the same engine. */
  public static Delivery lockStep() {
    return new Delivery(Map.of(), false);
  }

  /** This delivery holds back every record of {@code partition} not yet delivered. */
  public static Delivery holdingBack(int partition) {
    return lockStep().andHoldingBack(partition, ALL);
  }

  /** This delivery holds back the newest {@code records} records of {@code partition}. */
  public static Delivery holdingBack(int partition, int records) {
    return lockStep().andHoldingBack(partition, records);
  }

  /** A new engine instance takes over before this delivery (state comes from the table alone). */
  public static Delivery afterRestart() {
    return lockStep().withRestart();
  }

  public Delivery andHoldingBack(int partition, int records) {
    Map<Integer, Integer> m = new HashMap<>(heldBack);
    m.put(partition, records);
    return new Delivery(m, restartBefore);
  }

  public Delivery withRestart() {
    return new Delivery(heldBack, true);
  }

  /** How many of the partition's {@code pending} records this delivery hands to the engine. */
  public int delivers(int partition, int pending) {
    int held = heldBack.getOrDefault(partition, 0);
    return held >= pending ? 0 : pending - held;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(restartBefore ? "restart, " : "");
    new TreeMap<>(heldBack).forEach((p, n) -> sb.append("hold p").append(p).append(n == ALL ? " all" : " " + n).append(", "));
    return sb.isEmpty() ? "lock-step" : sb.substring(0, sb.length() - 2);
  }
}
