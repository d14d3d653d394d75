package dev.floe.worker.model;

import java.util.ArrayList;
import java.util.List;

/**
 * A change history cut into the batches the source writes, and how each batch is delivered to the
 * engine: which partitions lag behind, and whether the engine restarts first. Batch {@code i} is
 * delivered by {@code deliveries.get(i)}; what a delivery holds back comes in later deliveries, and
 * whatever is still held back after the last batch is delivered at the end.
 */
public record Script(List<List<Step>> batches, List<Delivery> deliveries) {
  public Script {
    batches = List.copyOf(batches);
    List<Delivery> padded = new ArrayList<>(deliveries.subList(0, Math.min(deliveries.size(), batches.size())));
    while (padded.size() < batches.size()) {
      padded.add(Delivery.lockStep());
    }
    deliveries = List.copyOf(padded);
  }

  /** Every batch delivered whole, all partitions in lock-step, by one engine. */
  public Script(List<List<Step>> batches) {
    this(batches, List.of());
  }

  /** True when some delivery holds a partition back or restarts the engine. */
  public boolean lags() {
    return deliveries.stream().anyMatch(d -> !d.equals(Delivery.lockStep()));
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("Script[\n");
    for (int i = 0; i < batches.size(); i++) {
      sb.append("  ").append(batches.get(i));
      if (!deliveries.get(i).equals(Delivery.lockStep())) {
        sb.append("  ").append(deliveries.get(i));
      }
      sb.append('\n');
    }
    return sb.append(']').toString();
  }
}
