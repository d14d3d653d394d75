package dev.floe.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/** How the worker pods (and the compaction Job's pod) are dressed. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record WorkerPodSpec(
    @JsonPropertyDescription("Worker image; by default the operator's own version of floe-worker.") String image,
    @JsonPropertyDescription("CPU and memory requests and limits of a worker.") ResourceRequirements resources,
    @JsonPropertyDescription("Extra environment variables (for ${env:NAME} references in the sink config).") List<EnvVar> env,
    @JsonPropertyDescription("Service account of the worker pods (for cloud storage identity).") String serviceAccountName,
    @JsonPropertyDescription("Node selector of the worker pods.") Map<String, String> nodeSelector,
    @JsonPropertyDescription("Tolerations of the worker pods.") List<Toleration> tolerations) {

  public static final WorkerPodSpec DEFAULTS = new WorkerPodSpec(null, null, null, null, null, null);

  public WorkerPodSpec {
    env = env == null ? List.of() : List.copyOf(env);
    nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
  }
}
