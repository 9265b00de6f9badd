package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.infera.operator.desired.RenderInputs.NatsSettings;

/**
 * The operator-deployed NATS server (docs/contracts.md, "NATS event plane"): a one-replica
 * JetStream StatefulSet with a persistent volume, its headless Service and a ConfigMap with the
 * server configuration, all {@code <idep>-nats}. Not built when {@code spec.nats.url} names an
 * external server.
 */
public final class DesiredNats {

  public static final String CLIENT_PORT_NAME = "client";
  public static final String MONITOR_PORT_NAME = "monitor";

  /** The PVC template's name; the claim of pod 0 is {@code data-<idep>-nats-0}. */
  public static final String DATA_VOLUME = "data";

  private static final String STORE_DIR = "/data";

  /** The ConfigMap volume and where the server reads it. */
  public static final String CONFIG_VOLUME = "config";

  public static final String CONFIG_KEY = "nats.conf";
  private static final String CONFIG_DIR = "/etc/nats";

  /**
   * The largest message: a relay's view snapshot is one KV value of about 18 bytes per cached
   * block, so NATS's 1 MB default holds only ~58k blocks; 64 MB (the server's limit) holds ~3.5M.
   */
  public static final String MAX_PAYLOAD = "64MB";

  /** {@code nats.conf}: what the command line cannot set. */
  public static final String CONFIG =
      "# Written by infera-operator. Relays store view snapshots of ~18 bytes per cached block\n"
          + "# as one message each: the 1 MB default would refuse views above ~58k blocks.\n"
          + "max_payload: "
          + MAX_PAYLOAD
          + "\n";

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
        // NATS never talks to the Kubernetes API.
        .withAutomountServiceAccountToken(false)
        .withTerminationGracePeriodSeconds(60L)
        .withSecurityContext(Common.nonRootPod())
        .addNewContainer()
        .withName(Names.NATS_CONTAINER)
        .withImage(n.image())
        .withArgs(
            "--config",
            CONFIG_DIR + "/" + CONFIG_KEY,
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
        .addNewVolumeMount()
        .withName(CONFIG_VOLUME)
        .withMountPath(CONFIG_DIR)
        .withReadOnly(true)
        .endVolumeMount()
        .endContainer()
        .addNewVolume()
        .withName(CONFIG_VOLUME)
        .withNewConfigMap()
        .withName(name)
        .endConfigMap()
        .endVolume()
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

  /** The server configuration the StatefulSet mounts ({@link #CONFIG}). */
  public static ConfigMap configMap(RenderInputs in) {
    return new ConfigMapBuilder().withMetadata(meta(in)).addToData(CONFIG_KEY, CONFIG).build();
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
