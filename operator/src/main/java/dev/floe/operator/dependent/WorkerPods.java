package dev.floe.operator.dependent;

import dev.floe.operator.model.CdcSink;
import dev.floe.operator.model.WorkerPodSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The pod of a worker or a compaction Job: the worker image run as a non-root user on a read-only
 * root filesystem, the config mounted from the ConfigMap, referenced Secrets mounted where the
 * worker looks for them ({@code /etc/floe/secrets/<name>/<key>}).
 */
public final class WorkerPods {
  /** The image's user (distroless nonroot); the pod runs as it whatever the image says. */
  static final long USER = 65532;

  private WorkerPods() {}

  /** The command line after the image's entrypoint ({@code floe}) for one subcommand. */
  public static List<String> args(String subcommand) {
    String config = SinkResources.CONFIG_DIR + "/" + SinkResources.CONFIG_FILE;
    return switch (subcommand) {
      case "run" -> List.of("run", "--config", config, "--port", String.valueOf(SinkResources.HTTP_PORT), "--log-format", "json");
      case "compact" -> List.of("compact", "--config", config, "--report", "/dev/termination-log");
      default -> throw new IllegalArgumentException("no worker subcommand " + subcommand);
    };
  }

  static PodSpec pod(CdcSink sink, Container container, String restartPolicy) {
    WorkerPodSpec w = sink.getSpec().workerOrDefaults();
    return new PodSpecBuilder()
        .withContainers(container)
        .withRestartPolicy(restartPolicy)
        .withServiceAccountName(w.serviceAccountName())
        // the worker never calls the Kubernetes API: no token for a compromised pod to use.
        // Cloud identity (IRSA, workload identity) projects its own token and does not need this.
        .withAutomountServiceAccountToken(false)
        .withNodeSelector(w.nodeSelector().isEmpty() ? null : w.nodeSelector())
        .withTolerations(w.tolerations().isEmpty() ? null : w.tolerations())
        .withTerminationGracePeriodSeconds(30L) // the worker finishes its open batch within 25 s
        .withNewSecurityContext()
        .withRunAsNonRoot(true)
        .withRunAsUser(USER)
        .withRunAsGroup(USER)
        .withFsGroup(USER)
        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
        .endSecurityContext()
        .withVolumes(volumes(sink))
        .build();
  }

  static ContainerBuilder container(CdcSink sink, String defaultImage, String name, List<String> args) {
    WorkerPodSpec w = sink.getSpec().workerOrDefaults();
    List<EnvVar> env = new ArrayList<>();
    env.add(new EnvVarBuilder().withName("FLOE_INSTANCE_ID").withNewValueFrom().withNewFieldRef().withFieldPath("metadata.name").endFieldRef().endValueFrom().build());
    env.add(new EnvVarBuilder().withName("FLOE_SECRETS_DIR").withValue(SinkResources.SECRETS_DIR).build());
    env.addAll(w.env());
    return new ContainerBuilder()
        .withName(name)
        .withImage(w.image() == null ? defaultImage : w.image())
        .withArgs(args)
        .withEnv(env)
        .withResources(w.resources())
        .withVolumeMounts(mounts(sink))
        .withNewSecurityContext()
        .withAllowPrivilegeEscalation(false)
        .withReadOnlyRootFilesystem(true)
        .withNewCapabilities().withDrop("ALL").endCapabilities()
        .endSecurityContext();
  }

  /** The Secrets the sink references: Kafka client properties, schema registry credentials and catalog properties. */
  static Set<String> secretRefs(CdcSink sink) {
    Set<String> refs = new LinkedHashSet<>();
    if (sink.getSpec().source() != null && sink.getSpec().source().kafkaSecretRef() != null) {
      refs.add(sink.getSpec().source().kafkaSecretRef());
    }
    if (sink.getSpec().source() != null && sink.getSpec().source().schemaRegistry() != null
        && sink.getSpec().source().schemaRegistry().secretRef() != null) {
      refs.add(sink.getSpec().source().schemaRegistry().secretRef());
    }
    if (sink.getSpec().table() != null && sink.getSpec().table().catalog() != null && sink.getSpec().table().catalog().secretRef() != null) {
      refs.add(sink.getSpec().table().catalog().secretRef());
    }
    return refs;
  }

  private static List<Volume> volumes(CdcSink sink) {
    List<Volume> volumes = new ArrayList<>();
    volumes.add(new VolumeBuilder().withName("config").withNewConfigMap().withName(SinkResources.configName(sink)).endConfigMap().build());
    volumes.add(new VolumeBuilder().withName("tmp").withNewEmptyDir().endEmptyDir().build()); // the root filesystem is read-only
    for (String secret : secretRefs(sink)) {
      volumes.add(new VolumeBuilder().withName("secret-" + secret).withNewSecret().withSecretName(secret).withDefaultMode(0400).endSecret().build());
    }
    return volumes;
  }

  private static List<VolumeMount> mounts(CdcSink sink) {
    List<VolumeMount> mounts = new ArrayList<>();
    mounts.add(new VolumeMountBuilder().withName("config").withMountPath(SinkResources.CONFIG_DIR).withReadOnly(true).build());
    mounts.add(new VolumeMountBuilder().withName("tmp").withMountPath("/tmp").build());
    for (String secret : secretRefs(sink)) {
      mounts.add(new VolumeMountBuilder().withName("secret-" + secret).withMountPath(SinkResources.SECRETS_DIR + "/" + secret).withReadOnly(true).build());
    }
    return mounts;
  }
}
