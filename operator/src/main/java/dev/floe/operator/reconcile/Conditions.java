package dev.floe.operator.reconcile;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import dev.floe.worker.config.Redactor;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Sets conditions the Kubernetes way: one per type, {@code lastTransitionTime} kept unless the
 * status flips, {@code observedGeneration} on each.
 */
public final class Conditions {
  public static final String READY = "Ready";
  public static final String RECONCILING = "Reconciling";
  public static final String STALLED = "Stalled";
  public static final String SCALING = "Scaling";

  private Conditions() {}

  public static void set(List<Condition> conditions, String type, boolean status, String reason, String message, Long generation, Instant now) {
    String value = status ? "True" : "False";
    Optional<Condition> existing = find(conditions, type);
    String since = existing.filter(c -> value.equals(c.getStatus())).map(Condition::getLastTransitionTime).orElse(now.toString());
    Condition next = new ConditionBuilder()
        .withType(type).withStatus(value).withReason(reason).withMessage(Redactor.redact(message)) // status is widely readable
        .withObservedGeneration(generation).withLastTransitionTime(since)
        .build();
    conditions.removeIf(c -> type.equals(c.getType()));
    conditions.add(next);
  }

  public static Optional<Condition> find(List<Condition> conditions, String type) {
    return conditions == null ? Optional.empty() : conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }
}
