package dev.floe.operator.reconcile;

import dev.floe.operator.model.CdcSinkSpec;
import dev.floe.operator.model.ScalingSpec;
import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.ConfigProblem;
import dev.floe.worker.config.LiteralSecrets;
import dev.floe.worker.config.SinkSpecValidator;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.List;

/**
 * What is wrong with a CdcSink spec, field by field with an example of right: the worker's own
 * config checks plus the operator's. Catches what the CRD schema cannot (or what an API server
 * without CEL let through).
 */
public final class SpecProblems {
  private SpecProblems() {}

  public static List<ConfigProblem> of(CdcSinkSpec spec) {
    if (spec == null) {
      return List.of(new ConfigProblem("spec", "is required", "spec: {source: ..., table: ...}"));
    }
    List<ConfigProblem> out = new ArrayList<>(SinkSpecValidator.problems(spec.sinkSpec()));
    ScalingSpec s = spec.scalingOrDefaults();
    if (s.minReplicas() < 0) {
      out.add(new ConfigProblem("scaling.minReplicas", "must be 0 or more", "0"));
    }
    if (s.maxReplicas() < 1 || s.maxReplicas() < s.minReplicas()) {
      out.add(new ConfigProblem("scaling.maxReplicas", "must be at least 1 and at least minReplicas (" + s.minReplicas() + ")", "4"));
    }
    if (s.lagPerReplica() < 1) {
      out.add(new ConfigProblem("scaling.lagPerReplica", "must be at least 1", "10000"));
    }
    duration(out, "scaling.idleAfter", s.idleAfter(), "5m", s::idleAfterDuration);
    duration(out, "scaling.scaleDownStabilization", s.scaleDownStabilization(), "2m", s::scaleDownStabilizationDuration);
    SinkSpecValidator.positive(out, "scaling.pollInterval", s.pollInterval(), "15s");
    return out;
  }

  /**
   * Secrets written into the spec literally: the sink config's (see {@link LiteralSecrets}) and
   * worker environment variables with a secret-like name and a {@code value} instead of
   * {@code valueFrom.secretKeyRef}. Named by field, never by value.
   */
  public static List<ConfigProblem> literalSecrets(CdcSinkSpec spec) {
    if (spec == null || spec.source() == null || spec.table() == null) {
      return List.of();
    }
    List<ConfigProblem> out = new ArrayList<>(LiteralSecrets.of(spec.sinkSpec()));
    List<EnvVar> env = spec.workerOrDefaults().env();
    for (int i = 0; i < env.size(); i++) {
      EnvVar e = env.get(i);
      if (CatalogSpec.isSecretKey(e.getName()) && e.getValue() != null && !e.getValue().isBlank()) {
        out.add(new ConfigProblem("worker.env[" + i + "] (" + e.getName() + ")", "holds a literal secret; take it from a Secret",
            "{name: " + e.getName() + ", valueFrom: {secretKeyRef: {name: lake-s3, key: secret-access-key}}}"));
      }
    }
    return out;
  }

  /** One line a person can act on: "table.name: must be namespace.table, got 'orders' (for example: analytics.orders)". */
  public static String describe(List<ConfigProblem> problems) {
    return String.join("; ", problems.stream().map(ConfigProblem::toString).toList());
  }

  private static void duration(List<ConfigProblem> out, String field, String value, String example, Runnable parse) {
    try {
      parse.run();
    } catch (IllegalArgumentException e) {
      out.add(new ConfigProblem(field, "is not a duration: '" + value + "'", example));
    }
  }
}
