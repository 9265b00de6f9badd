package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.infera.operator.desired.RenderInputs.HubCache;
import io.infera.operator.desired.RenderInputs.HubDownload;
import io.infera.operator.desired.RenderInputs.HubFiles;
import io.infera.operator.desired.RenderInputs.RouterSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The router: ConfigMap (RouterConfig), Deployment, Service, and the ServiceAccount, Role and
 * RoleBinding that let it watch the pools' EndpointSlices, all named {@code <idep>-router}.
 */
public final class DesiredRouter {

  /** Pod-template annotation with the RouterConfig's SHA-256: a new config rolls the routers. */
  public static final String CONFIG_HASH_ANNOTATION = "infera.io/config-hash";

  /** The router's public port name (the OpenAI API, /health, /ready). */
  public static final String HTTP_PORT_NAME = "http";

  /** The admin port's name (/v1/admin/*, /v1/workers, /metrics; RouterConfig admin.port). */
  public static final String ADMIN_PORT_NAME = "admin";

  /** The generated Secret's admin token, mounted read-only: RouterConfig admin.tokenFile. */
  static final String ADMIN_TOKEN_VOLUME = "admin-token";

  public static final String ADMIN_TOKEN_DIR = "/var/run/secrets/infera/admin";
  public static final String ADMIN_TOKEN_PATH = ADMIN_TOKEN_DIR + "/token";

  private static final String CONFIG_VOLUME = "config";
  private static final String TMP_VOLUME = "tmp";

  /** The Hugging Face cache volume (a user's claim, or the emptyDir fetch-tokenizer fills). */
  static final String HF_VOLUME = "hf";

  /** Where it is mounted, and the router's {@code HF_HOME}: it looks in {@code /hf/hub}. */
  public static final String HF_HOME = "/hf";

  /** The init container that downloads a hub tokenizer (spec.router.tokenizer.download). */
  public static final String FETCH_TOKENIZER_CONTAINER = "fetch-tokenizer";

  /** Room for fetch-tokenizer's three files at its 64 MiB per-file bound. */
  private static final String HF_DOWNLOAD_SIZE = "256Mi";

  private DesiredRouter() {}

  public static ConfigMap configMap(RenderInputs in) {
    return new ConfigMapBuilder()
        .withMetadata(meta(in))
        .withData(new TreeMap<>(Map.of(Names.ROUTER_CONFIG_KEY, DesiredRouterConfig.yaml(in))))
        .build();
  }

  public static Deployment deployment(RenderInputs in) {
    RouterSettings r = in.router();
    Map<String, String> annotations = new TreeMap<>();
    annotations.put(CONFIG_HASH_ANNOTATION, DesiredRouterConfig.hash(in));
    annotations.put("prometheus.io/scrape", "true");
    annotations.put("prometheus.io/port", Integer.toString(Defaults.ROUTER_ADMIN_PORT));
    annotations.put("prometheus.io/path", "/metrics");
    return new DeploymentBuilder()
        .withMetadata(meta(in))
        .withNewSpec()
        .withReplicas(r.replicas())
        .withNewSelector()
        .withMatchLabels(Labels.routerSelector(in.name()))
        .endSelector()
        .withNewStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withMaxSurge(new IntOrString(1))
        .withMaxUnavailable(new IntOrString(0))
        .endRollingUpdate()
        .endStrategy()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Labels.router(in.name()))
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withServiceAccountName(Names.router(in.name()))
        .withEnableServiceLinks(false)
        .withTerminationGracePeriodSeconds(Defaults.ROUTER_TERMINATION_GRACE_SECONDS)
        .withSecurityContext(Common.nonRootPod())
        .withInitContainers(initContainers(in))
        .withContainers(container(in))
        .addNewVolume()
        .withName(CONFIG_VOLUME)
        .withNewConfigMap()
        .withName(Names.router(in.name()))
        .addNewItem()
        .withKey(Names.ROUTER_CONFIG_KEY)
        .withPath(Names.ROUTER_CONFIG_KEY)
        .endItem()
        .endConfigMap()
        .endVolume()
        .addNewVolume()
        .withName(TMP_VOLUME)
        .withNewEmptyDir()
        .withSizeLimit(new Quantity("1Gi"))
        .endEmptyDir()
        .endVolume()
        .addNewVolume()
        .withName(ADMIN_TOKEN_VOLUME)
        .withNewSecret()
        .withSecretName(Names.generatedSecret(in.name()))
        .addNewItem()
        .withKey(GeneratedSecret.ADMIN_TOKEN_KEY)
        .withPath("token")
        .endItem()
        // Readable by the router's group only (fsGroup); the API server's default mode is 0644.
        .withDefaultMode(0440)
        .endSecret()
        .endVolume()
        .addAllToVolumes(hfVolume(in))
        .addAllToVolumes(NatsCredentials.router(in).volumes())
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static HubFiles hubFiles(RenderInputs in) {
    return in.router().tokenizer().files();
  }

  /** The Hugging Face cache volume, when the tokenizer is a hub id. */
  private static List<Volume> hfVolume(RenderInputs in) {
    HubFiles files = hubFiles(in);
    if (files == null) {
      return List.of();
    }
    VolumeBuilder v = new VolumeBuilder().withName(HF_VOLUME);
    if (files instanceof HubCache c) {
      v.withNewPersistentVolumeClaim()
          .withClaimName(c.claimName())
          .withReadOnly(true)
          .endPersistentVolumeClaim();
    } else {
      v.withNewEmptyDir().withSizeLimit(new Quantity(HF_DOWNLOAD_SIZE)).endEmptyDir();
    }
    return List.of(v.build());
  }

  /** {@code fetch-tokenizer} from the router image, when the tokenizer is downloaded. */
  private static List<Container> initContainers(RenderInputs in) {
    if (!(hubFiles(in) instanceof HubDownload d)) {
      return List.of();
    }
    RouterSettings r = in.router();
    List<EnvVar> env = new ArrayList<>();
    env.add(Common.env("JAVA_TOOL_OPTIONS", Defaults.JAVA_TOOL_OPTIONS));
    if (d.secretName() != null) {
      env.add(
          new EnvVarBuilder()
              .withName("HF_TOKEN")
              .withNewValueFrom()
              .withNewSecretKeyRef()
              .withName(d.secretName())
              .withKey(d.secretKey())
              .endSecretKeyRef()
              .endValueFrom()
              .build());
    }
    if (d.endpoint() != null) {
      env.add(Common.env("HF_ENDPOINT", d.endpoint()));
    }
    String revision = r.tokenizer().revision() == null ? "main" : r.tokenizer().revision();
    return List.of(
        new ContainerBuilder()
            .withName(FETCH_TOKENIZER_CONTAINER)
            .withImage(r.image())
            .withArgs(
                "fetch-tokenizer",
                "--model",
                r.tokenizer().source(),
                "--revision",
                revision,
                "--dir",
                HF_HOME + "/hub")
            .withEnv(env)
            .withNewResources()
            .addToRequests("cpu", copy(r.cpu()))
            .addToRequests("memory", copy(r.memory()))
            .addToLimits("memory", copy(r.memory()))
            .endResources()
            .withSecurityContext(Common.restrictedContainer())
            .addNewVolumeMount()
            .withName(HF_VOLUME)
            .withMountPath(HF_HOME)
            .endVolumeMount()
            .addNewVolumeMount()
            .withName(TMP_VOLUME)
            .withMountPath("/tmp")
            .endVolumeMount()
            .build());
  }

  private static Container container(RenderInputs in) {
    RouterSettings r = in.router();
    HubFiles files = hubFiles(in);
    List<EnvVar> env = new ArrayList<>();
    env.add(Common.env("JAVA_TOOL_OPTIONS", Defaults.JAVA_TOOL_OPTIONS));
    // The tokenizer's native library is unpacked here (the root filesystem is read-only).
    env.add(Common.env("DJL_CACHE_DIR", "/tmp/djl"));
    List<VolumeMount> mounts = new ArrayList<>();
    mounts.add(
        new VolumeMountBuilder()
            .withName(CONFIG_VOLUME)
            .withMountPath(Names.ROUTER_CONFIG_DIR)
            .withReadOnly(true)
            .build());
    mounts.add(new VolumeMountBuilder().withName(TMP_VOLUME).withMountPath("/tmp").build());
    mounts.addAll(NatsCredentials.router(in).mounts());
    env.addAll(NatsCredentials.routerEnv(in));
    // The admin port's bearer token, as env (not a RouterConfig key) so that a router of the
    // previous release ignores it instead of refusing the document.
    env.add(
        new EnvVarBuilder()
            .withName("INFERA_ADMIN_TOKEN_FILE")
            .withValue(ADMIN_TOKEN_PATH)
            .build());
    env.add(Common.env("MALLOC_ARENA_MAX", Defaults.MALLOC_ARENA_MAX));
    mounts.add(
        new VolumeMountBuilder()
            .withName(ADMIN_TOKEN_VOLUME)
            .withMountPath(ADMIN_TOKEN_DIR)
            .withReadOnly(true)
            .build());
    if (files != null) {
      // The router resolves the hub id in $HF_HOME/hub (docs/operations.md, "The router's
      // tokenizer").
      env.add(Common.env("HF_HOME", HF_HOME));
      mounts.add(
          new VolumeMountBuilder()
              .withName(HF_VOLUME)
              .withMountPath(HF_HOME)
              .withSubPath(files instanceof HubCache c ? c.subPath() : null)
              .withReadOnly(true)
              .build());
    }
    return new ContainerBuilder()
        .withName(Names.ROUTER_CONTAINER)
        .withImage(r.image())
        .withArgs("serve", "--config", Names.ROUTER_CONFIG_PATH)
        .withEnv(env)
        .addNewPort()
        .withName(HTTP_PORT_NAME)
        .withContainerPort(Defaults.ROUTER_PORT)
        .withProtocol("TCP")
        .endPort()
        .addNewPort()
        .withName(ADMIN_PORT_NAME)
        .withContainerPort(Defaults.ROUTER_ADMIN_PORT)
        .withProtocol("TCP")
        .endPort()
        .withStartupProbe(Common.httpProbe("/health", HTTP_PORT_NAME, 2, 60, 2))
        .withLivenessProbe(Common.httpProbe("/health", HTTP_PORT_NAME, 10, 3, 2))
        .withReadinessProbe(Common.httpProbe("/ready", HTTP_PORT_NAME, 5, 2, 2))
        .withLifecycle(Common.preStopSleep(5))
        .withNewResources()
        .addToRequests("cpu", copy(r.cpu()))
        .addToRequests("memory", copy(r.memory()))
        .addToLimits("memory", copy(r.memory()))
        .endResources()
        .withSecurityContext(Common.restrictedContainer())
        .withVolumeMounts(mounts)
        .build();
  }

  /**
   * ClusterIP Service in front of the router replicas: the endpoint clients use, and the admin port
   * the operator's status reader uses (the NetworkPolicy admits only the operator and a scraper).
   */
  public static Service service(RenderInputs in) {
    return new ServiceBuilder()
        .withMetadata(meta(in))
        .withNewSpec()
        .withType("ClusterIP")
        .withSelector(Labels.routerSelector(in.name()))
        .addNewPort()
        .withName(HTTP_PORT_NAME)
        .withPort(Defaults.ROUTER_PORT)
        .withTargetPort(new IntOrString(HTTP_PORT_NAME))
        .withProtocol("TCP")
        .endPort()
        .addNewPort()
        .withName(ADMIN_PORT_NAME)
        .withPort(Defaults.ROUTER_ADMIN_PORT)
        .withTargetPort(new IntOrString(ADMIN_PORT_NAME))
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  public static ServiceAccount serviceAccount(RenderInputs in) {
    return new ServiceAccountBuilder().withMetadata(meta(in)).build();
  }

  /** Read-only access to EndpointSlices, nothing else (discovery backend {@code kubernetes}). */
  public static Role role(RenderInputs in) {
    return new RoleBuilder()
        .withMetadata(meta(in))
        .addNewRule()
        .withApiGroups("discovery.k8s.io")
        .withResources("endpointslices")
        .withVerbs("get", "list", "watch")
        .endRule()
        .build();
  }

  public static RoleBinding roleBinding(RenderInputs in) {
    return new RoleBindingBuilder()
        .withMetadata(meta(in))
        .withNewRoleRef()
        .withApiGroup("rbac.authorization.k8s.io")
        .withKind("Role")
        .withName(Names.router(in.name()))
        .endRoleRef()
        .addNewSubject()
        .withKind("ServiceAccount")
        .withName(Names.router(in.name()))
        .withNamespace(in.namespace())
        .endSubject()
        .build();
  }

  private static Quantity copy(Quantity q) {
    return new Quantity(q.getAmount(), q.getFormat());
  }

  private static io.fabric8.kubernetes.api.model.ObjectMeta meta(RenderInputs in) {
    return Common.meta(in, Names.router(in.name()), Labels.router(in.name()));
  }
}
