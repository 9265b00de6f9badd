package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.infera.operator.desired.RenderInputs.NatsSettings;

/**
 * The operator-deployed NATS server (DESIGN.md §5): a one-replica JetStream StatefulSet with a
 * persistent volume and its headless Service, both {@code <idep>-nats}. Not built when {@code
 * spec.nats.url} names an external server.
 */
public final class DesiredNats {

  public static final String CLIENT_PORT_NAME = "client";
  public static final String MONITOR_PORT_NAME = "monitor";

  /** The PVC template's name; the claim of pod 0 is {@code data-<idep>-nats-0}. */
  public static final String DATA_VOLUME = "data";

  private static final String STORE_DIR = "/data";

  private DesiredNats() {}

  public static StatefulSet statefulSet(RenderInputs in) {
    NatsSettings n = in.nats();
    String name = Names.nats(in.name());
    return new StatefulSetBuilder()
        .withMetadata(meta(in))
        .withNewSpec()
        .withReplicas(1)
        .withServiceName(name)
        .withNewSelector()
        .withMatchLabels(Labels.natsSelector(in.name()))
        .endSelector()
        // The volume goes with the StatefulSet (and so with the InferaDeployment).
        .withNewPersistentVolumeClaimRetentionPolicy()
        .withWhenDeleted("Delete")
        .withWhenScaled("Retain")
        .endPersistentVolumeClaimRetentionPolicy()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Labels.nats(in.name()))
        .endMetadata()
        .withNewSpec()
        .withEnableServiceLinks(false)
        .withTerminationGracePeriodSeconds(60L)
        .withSecurityContext(Common.nonRootPod())
        .addNewContainer()
        .withName(Names.NATS_CONTAINER)
        .withImage(n.image())
        .withArgs(
            "--jetstream",
            "--store_dir",
            STORE_DIR,
            "--port",
            Integer.toString(Defaults.NATS_CLIENT_PORT),
            "--http_port",
            Integer.toString(Defaults.NATS_MONITOR_PORT),
            "--server_name",
            "$(POD_NAME)")
        .withEnv(Common.podNameEnv())
        .addNewPort()
        .withName(CLIENT_PORT_NAME)
        .withContainerPort(Defaults.NATS_CLIENT_PORT)
        .withProtocol("TCP")
        .endPort()
        .addNewPort()
        .withName(MONITOR_PORT_NAME)
        .withContainerPort(Defaults.NATS_MONITOR_PORT)
        .withProtocol("TCP")
        .endPort()
        .withStartupProbe(Common.httpProbe("/healthz", MONITOR_PORT_NAME, 2, 30, 2))
        .withLivenessProbe(Common.httpProbe("/healthz", MONITOR_PORT_NAME, 10, 3, 2))
        .withReadinessProbe(
            Common.httpProbe("/healthz?js-enabled-only=true", MONITOR_PORT_NAME, 5, 3, 2))
        .withNewResources()
        .addToRequests("cpu", copy(n.cpu()))
        .addToRequests("memory", copy(n.memory()))
        .addToLimits("memory", copy(n.memory()))
        .endResources()
        .withSecurityContext(Common.restrictedContainer())
        .addNewVolumeMount()
        .withName(DATA_VOLUME)
        .withMountPath(STORE_DIR)
        .endVolumeMount()
        .endContainer()
        .endSpec()
        .endTemplate()
        .addNewVolumeClaimTemplate()
        .withNewMetadata()
        .withName(DATA_VOLUME)
        .withLabels(Labels.nats(in.name()))
        .endMetadata()
        .withNewSpec()
        .withAccessModes("ReadWriteOnce")
        .withStorageClassName(n.storageClass())
        .withNewResources()
        .addToRequests("storage", copy(n.storage()))
        .endResources()
        .endSpec()
        .endVolumeClaimTemplate()
        .endSpec()
        .build();
  }

  /** Headless: the StatefulSet's governing Service; the URL routers and relays use. */
  public static Service service(RenderInputs in) {
    return new ServiceBuilder()
        .withMetadata(meta(in))
        .withNewSpec()
        .withClusterIP("None")
        .withSelector(Labels.natsSelector(in.name()))
        .addNewPort()
        .withName(CLIENT_PORT_NAME)
        .withPort(Defaults.NATS_CLIENT_PORT)
        .withTargetPort(new IntOrString(CLIENT_PORT_NAME))
        .withProtocol("TCP")
        .endPort()
        .addNewPort()
        .withName(MONITOR_PORT_NAME)
        .withPort(Defaults.NATS_MONITOR_PORT)
        .withTargetPort(new IntOrString(MONITOR_PORT_NAME))
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  private static Quantity copy(Quantity q) {
    return new Quantity(q.getAmount(), q.getFormat());
  }

  private static ObjectMeta meta(RenderInputs in) {
    return Common.meta(in, Names.nats(in.name()), Labels.nats(in.name()));
  }
}
