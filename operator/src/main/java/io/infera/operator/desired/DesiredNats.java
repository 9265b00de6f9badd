package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.infera.operator.desired.RenderInputs.NatsSettings;
import io.infera.operator.desired.RenderInputs.PoolSettings;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

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

  /** JetStream may fill this share of the volume (the rest: the store's own files, headroom). */
  static final int FILE_STORE_PERCENT = 90;

  /** JetStream memory storage (no stream of ours uses it): this share of the memory limit. */
  static final int MEMORY_STORE_PERCENT = 25;

  /**
   * {@code nats.conf}: what the command line cannot set. The payload limit; JetStream's limits,
   * from the volume and the memory limit (unset, the server sizes them from the node); and one user
   * per role with its permissions (docs/contracts.md, "NATS event plane"): routers read the stream
   * and the bucket and share load, each pool's relays write only their pool's subjects and snapshot
   * keys. Passwords are env variables the pod reads from the generated Secret: this file holds
   * none. With no authorization block an anonymous client would be let in; with it, it is refused.
   */
  public static String config(RenderInputs in) {
    NatsSettings n = in.nats();
    String prefix = n.subjectPrefix();
    String stream = n.stream();
    String kvStream = "KV_" + n.snapshotBucket();
    String load = loadSubject(prefix);
    StringBuilder sb = new StringBuilder();
    sb.append("# Written by infera-operator. Relays store view snapshots of ~18 bytes per cached\n")
        .append("# block as one message each: the 1 MB default would refuse views above ~58k.\n")
        .append("max_payload: ")
        .append(MAX_PAYLOAD)
        .append("\n")
        .append("jetstream {\n")
        .append("  max_file_store: ")
        .append(percentOf(n.storage(), FILE_STORE_PERCENT))
        .append("\n")
        .append("  max_memory_store: ")
        .append(percentOf(n.memory(), MEMORY_STORE_PERCENT))
        .append("\n")
        .append("}\n")
        .append("authorization {\n")
        .append("  users = [\n");
    List<String> common =
        List.of(
            "$JS.API.INFO",
            "$JS.API.STREAM.INFO." + stream,
            "$JS.API.STREAM.CREATE." + stream,
            "$JS.API.STREAM.INFO." + kvStream,
            "$JS.API.STREAM.CREATE." + kvStream);
    List<String> routerPub = new ArrayList<>(common);
    routerPub.add(load);
    routerPub.add("$JS.API.STREAM.MSG.GET." + kvStream);
    routerPub.add("$JS.API.DIRECT.GET." + kvStream);
    routerPub.add("$JS.API.DIRECT.GET." + kvStream + ".>");
    routerPub.addAll(consumerSubjects(stream));
    routerPub.addAll(consumerSubjects(kvStream));
    user(sb, NatsCredentials.ROUTER_USER, routerPub, List.of("_INBOX.>", load));
    for (PoolSettings p : in.pools()) {
      String user = NatsCredentials.relayUser(p.name());
      List<String> pub = new ArrayList<>();
      pub.add(prefix + "." + p.name() + ".>");
      pub.add("$KV." + n.snapshotBucket() + "." + p.name() + ".>");
      pub.addAll(common);
      // The last stored message of a subject, on restart (the stream has no direct get).
      pub.add("$JS.API.STREAM.MSG.GET." + stream);
      // Its own pool's snapshots only.
      pub.add(
          "$JS.API.DIRECT.GET." + kvStream + ".$KV." + n.snapshotBucket() + "." + p.name() + ".>");
      pub.addAll(consumerSubjects(stream));
      user(sb, user, pub, List.of("_INBOX.>"));
    }
    sb.append("  ]\n").append("}\n");
    return sb.toString();
  }

  /** What reading a stream through a consumer of one's own takes (create, pull, flow control). */
  private static List<String> consumerSubjects(String stream) {
    return List.of(
        "$JS.API.CONSUMER.CREATE." + stream,
        "$JS.API.CONSUMER.CREATE." + stream + ".>",
        "$JS.API.CONSUMER.INFO." + stream + ".>",
        "$JS.API.CONSUMER.DELETE." + stream + ".>",
        "$JS.API.CONSUMER.MSG.NEXT." + stream + ".>",
        "$JS.ACK." + stream + ".>",
        "$JS.FC." + stream + ".>");
  }

  private static void user(StringBuilder sb, String user, List<String> pub, List<String> sub) {
    sb.append("    {\n")
        .append("      user: ")
        .append(quote(user))
        .append("\n")
        .append("      password: $")
        .append(NatsCredentials.passwordEnv(user))
        .append("\n")
        .append("      permissions: {\n")
        .append("        publish: { allow: ")
        .append(list(pub))
        .append(" }\n")
        .append("        subscribe: { allow: ")
        .append(list(sub))
        .append(" }\n")
        .append("      }\n")
        .append("    }\n");
  }

  private static String list(List<String> items) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < items.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(quote(items.get(i)));
    }
    return sb.append("]").toString();
  }

  // Names here are CRD-validated tokens (no quotes or backslashes); quoted, '$' stays literal.
  private static String quote(String s) {
    return "\"" + s + "\"";
  }

  /** The router's load subject: the prefix's first token + {@code .load} (as the router does). */
  static String loadSubject(String prefix) {
    int dot = prefix.indexOf('.');
    return (dot < 0 ? prefix : prefix.substring(0, dot)) + ".load";
  }

  private static long percentOf(Quantity q, int percent) {
    return Quantity.getAmountInBytes(q)
        .multiply(BigDecimal.valueOf(percent))
        .divide(BigDecimal.valueOf(100), 0, RoundingMode.FLOOR)
        .longValueExact();
  }

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
        // nats.conf changes (a new pool's user) reach the server by a restart.
        .addToAnnotations(CONFIG_HASH_ANNOTATION, configHash(in))
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
        .withEnv(envOf(in))
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

  /** The server configuration the StatefulSet mounts ({@link #config}). */
  public static ConfigMap configMap(RenderInputs in) {
    return new ConfigMapBuilder().withMetadata(meta(in)).addToData(CONFIG_KEY, config(in)).build();
  }

  /** The pod template annotation carrying {@link #configHash}. */
  public static final String CONFIG_HASH_ANNOTATION = "infera.io/nats-config-hash";

  /** SHA-256 of {@link #config}, hex. */
  static String configHash(RenderInputs in) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(config(in).getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private static List<EnvVar> envOf(RenderInputs in) {
    List<EnvVar> env = new ArrayList<>();
    env.add(Common.podNameEnv());
    env.addAll(NatsCredentials.serverEnv(in));
    return env;
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
