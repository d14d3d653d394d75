package dev.floe.worker.model;

import java.util.List;

/** A change history cut into the batches the engine receives. */
public record Script(List<List<Step>> batches) {
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("Script[\n");
    for (List<Step> b : batches) {
      sb.append("  ").append(b).append('\n');
    }
    return sb.append(']').toString();
  }
}
