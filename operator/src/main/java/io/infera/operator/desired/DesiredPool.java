package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.desired.RenderInputs.PoolSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One pool: a Deployment of engine workers (engine container + relay sidecar) and the headless
 * Service whose EndpointSlices the routers watch, both named {@code <idep>-<pool>}.
 */
public final class DesiredPool {

  /** The engine's HTTP port name (OpenAI API, /health). */
  public static final String HTTP_PORT_NAME = "http";

  public static final String PYTHONHASHSEED = "PYTHONHASHSEED";

  public static final String VLLM_NIXL_SIDE_CHANNEL_HOST = "VLLM_NIXL_SIDE_CHANNEL_HOST";

  private static final String SHM_VOLUME = "dshm";

  /**
   * The simulator's writable /tmp: its root file system is read-only, and the tokenizer unpacks its
   * native library under {@code DJL_CACHE_DIR} before the engine can start.
   */
  static final String ENGINE_TMP_VOLUME = "engine-tmp";

  static final String DJL_CACHE_DIR = "DJL_CACHE_DIR";

  private DesiredPool() {}

  public static Deployment deployment(RenderInputs in, PoolSettings pool) {
    boolean gpu = pool.usesGpus();
    List<Volume> volumes = new ArrayList<>();
    shmVolume(in, pool).ifPresent(volumes::add);
    volumes.add(
        new VolumeBuilder()
            .withName(RelaySidecar.TMP_VOLUME)
            .withNewEmptyDir()
            .withSizeLimit(new Quantity("256Mi"))
            .endEmptyDir()
            .build());
    if (in.engine() == Engine.SIM) {
      volumes.add(
          new VolumeBuilder()
              .withName(ENGINE_TMP_VOLUME)
              .withNewEmptyDir()
              .withSizeLimit(new Quantity("256Mi"))
              .endEmptyDir()
              .build());
    }
    return new DeploymentBuilder()
        .withMetadata(meta(in, pool))
        .withNewSpec()
        .withReplicas(pool.replicas())
        .withNewSelector()
        .withMatchLabels(Labels.poolSelector(in.name(), pool.name()))
        .endSelector()
        .withNewStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        // GPU pools: never ask for a GPU more than the pool holds; replace one worker at a time.
        .withMaxSurge(new IntOrString(gpu ? 0 : 1))
        .withMaxUnavailable(new IntOrString(gpu ? 1 : 0))
        .endRollingUpdate()
        .endStrategy()
        .withProgressDeadlineSeconds(progressDeadlineSeconds(in))
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Labels.pool(in.name(), pool.name(), pool.role()))
        .withAnnotations(
            new TreeMap<>(
                Map.of("kubectl.kubernetes.io/default-container", Names.ENGINE_CONTAINER)))
        .endMetadata()
        .withNewSpec()
        .withEnableServiceLinks(false)
        // Neither the engine nor the relay talks to the Kubernetes API.
        .withAutomountServiceAccountToken(false)
        .withTerminationGracePeriodSeconds(
            Defaults.PRE_STOP_SLEEP_SECONDS
                + (in.engine().loadsModelWeights()
                    ? Defaults.GPU_TERMINATION_GRACE_SECONDS
                    : Defaults.SIM_TERMINATION_GRACE_SECONDS))
        .withNewSecurityContext()
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .endSecurityContext()
        .withNodeSelector(pool.nodeSelector().isEmpty() ? null : new TreeMap<>(pool.nodeSelector()))
        .withTolerations(
            pool.tolerations().stream().map(t -> new TolerationBuilder(t).build()).toList())
        .withContainers(engineContainer(in, pool), RelaySidecar.container(in, pool))
        .withVolumes(volumes)
        .addAllToVolumes(NatsCredentials.relay(in, pool.name()).volumes())
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /** Headless: one DNS record and one EndpointSlice endpoint per worker pod. */
  public static Service service(RenderInputs in, PoolSettings pool) {
    return new ServiceBuilder()
        .withMetadata(meta(in, pool))
        .withNewSpec()
        .withClusterIP("None")
        .withSelector(Labels.poolSelector(in.name(), pool.name()))
        .addNewPort()
        .withName(HTTP_PORT_NAME)
        .withPort(Defaults.ENGINE_PORT)
        .withTargetPort(new IntOrString(HTTP_PORT_NAME))
        .withProtocol("TCP")
        .endPort()
        .endSpec()
        .build();
  }

  /** SGLang's prefill bootstrap server (the router's hand-over sends decode workers there). */
  public static final int SGLANG_BOOTSTRAP_PORT = 8998;

  /**
   * ATOM's Mooncake/MORI-IO {@code handshake_port} default of GPU rank 0 (its connectors add the
   * rank's offset); decode workers reach prefill workers on it.
   */
  public static final int ATOM_HANDSHAKE_PORT = 6301;

  /** vLLM's NIXL side channel of rank 0 (kv_transfer_params.remote_port); rank r at + r. */
  public static final int VLLM_NIXL_SIDE_CHANNEL_PORT = 5600;

  /**
   * The ports decode workers reach prefill workers on, declared for network policies and readers:
   * SGLang's bootstrap server on prefill pods, vLLM's NIXL side channel and ATOM's KV-transfer
   * handshake on both roles.
   */
  static List<io.fabric8.kubernetes.api.model.ContainerPort> handOverPorts(
      RenderInputs in, PoolSettings pool) {
    io.infera.operator.api.v1alpha1.PoolRole role = pool.role();
    if (role == io.infera.operator.api.v1alpha1.PoolRole.MIXED) {
      return List.of();
    }
    return switch (in.engine()) {
      case SGLANG ->
          role == io.infera.operator.api.v1alpha1.PoolRole.PREFILL
              ? List.of(port("bootstrap", SGLANG_BOOTSTRAP_PORT))
              : List.of();
      case ATOM -> {
        // Mooncake/MORI-IO handshake: one port per GPU rank of the worker (tp x pp offsets).
        List<io.fabric8.kubernetes.api.model.ContainerPort> ports = new ArrayList<>();
        for (int r = 0; r < Math.max(1, pool.gpu()); r++) {
          ports.add(port(r == 0 ? "kv-handshake" : "kv-handshake-" + r, ATOM_HANDSHAKE_PORT + r));
        }
        yield List.copyOf(ports);
      }
      case VLLM -> {
        // vLLM offsets the side channel by the data-parallel rank, as it does the KV-event ports.
        List<io.fabric8.kubernetes.api.model.ContainerPort> ports = new ArrayList<>();
        for (int r = 0; r < pool.dataParallelSize(); r++) {
          ports.add(port(r == 0 ? "nixl" : "nixl-" + r, VLLM_NIXL_SIDE_CHANNEL_PORT + r));
        }
        yield List.copyOf(ports);
      }
      default -> List.of();
    };
  }

  private static io.fabric8.kubernetes.api.model.ContainerPort port(String name, int number) {
    return new io.fabric8.kubernetes.api.model.ContainerPortBuilder()
        .withName(name)
        .withContainerPort(number)
        .withProtocol("TCP")
        .build();
  }

  /** The engine container: derived command, PYTHONHASHSEED, GPUs, probes, pre-stop drain. */
  public static Container engineContainer(RenderInputs in, PoolSettings pool) {
    EngineCommand cmd = EngineCommand.of(in, pool);
    List<EnvVar> env = new ArrayList<>();
    env.add(pythonHashSeed(in));
    env.addAll(EngineEnv.vars(in));
    if (in.engine() == io.infera.operator.api.v1alpha1.Engine.VLLM
        && pool.role() != io.infera.operator.api.v1alpha1.PoolRole.MIXED) {
      // NIXL's side channel: the address a decode worker is told (kv_transfer_params.remote_host)
      // must be the prefill pod's, not localhost.
      env.add(
          new EnvVarBuilder()
              .withName(VLLM_NIXL_SIDE_CHANNEL_HOST)
              .withNewValueFrom()
              .withNewFieldRef()
              .withApiVersion(Common.FIELD_REF_API_VERSION)
              .withFieldPath("status.podIP")
              .endFieldRef()
              .endValueFrom()
              .build());
    }
    boolean ownDjlCache = pool.env().stream().anyMatch(e -> e.getName().equals(DJL_CACHE_DIR));
    if (in.engine() == Engine.SIM && !ownDjlCache) {
      // Where the image puts it too; said here so that another image in the pool keeps to /tmp.
      env.add(Common.env(DJL_CACHE_DIR, "/tmp/djl"));
    }
    for (EnvVar e : pool.env()) {
      // An equal PYTHONHASHSEED or derived variable is not repeated; a different one was refused.
      if (!e.getName().equals(PYTHONHASHSEED) && !EngineEnv.isDerived(in, e.getName())) {
        env.add(Common.serverDefaults(e));
      }
    }
    boolean slowStart = in.engine().loadsModelWeights();
    Probe startup =
        slowStart
            ? Common.httpProbe(
                "/health",
                HTTP_PORT_NAME,
                Defaults.ENGINE_STARTUP_PERIOD_SECONDS,
                Defaults.ENGINE_STARTUP_FAILURES,
                5)
            : Common.httpProbe(
                "/health",
                HTTP_PORT_NAME,
                Defaults.SIM_STARTUP_PERIOD_SECONDS,
                Defaults.SIM_STARTUP_FAILURES,
                2);
    ContainerBuilder b =
        new ContainerBuilder()
            .withName(Names.ENGINE_CONTAINER)
            .withImage(pool.image())
            .withCommand(cmd.command().isEmpty() ? null : cmd.command())
            .withArgs(cmd.args())
            .withEnv(env)
            .addNewPort()
            .withName(HTTP_PORT_NAME)
            .withContainerPort(Defaults.ENGINE_PORT)
            .withProtocol("TCP")
            .endPort()
            .addAllToPorts(handOverPorts(in, pool))
            .withStartupProbe(startup)
            .withLivenessProbe(Common.httpProbe("/health", HTTP_PORT_NAME, 10, 6, 5))
            .withReadinessProbe(Common.httpProbe("/health", HTTP_PORT_NAME, 5, 3, 2))
            .withLifecycle(Common.preStopSleep(Defaults.PRE_STOP_SLEEP_SECONDS))
            .withNewResources()
            .withRequests(requests(pool))
            .withLimits(limits(pool))
            .endResources()
            .withSecurityContext(engineSecurity(in.engine()));
    if (shmVolume(in, pool).isPresent()) {
      b.addToVolumeMounts(
          new VolumeMountBuilder().withName(SHM_VOLUME).withMountPath("/dev/shm").build());
    }
    if (in.engine() == Engine.SIM) {
      b.addToVolumeMounts(
          new VolumeMountBuilder().withName(ENGINE_TMP_VOLUME).withMountPath("/tmp").build());
    }
    return b.build();
  }

  /**
   * The spec's value, or a reference to the generated Secret: never the generated value itself, so
   * the pod template (and {@code render}) stays deterministic and the value stays out of the spec.
   */
  static EnvVar pythonHashSeed(RenderInputs in) {
    if (in.pythonHashSeed() != null) {
      return Common.env(PYTHONHASHSEED, in.pythonHashSeed());
    }
    return new EnvVarBuilder()
        .withName(PYTHONHASHSEED)
        .withNewValueFrom()
        .withNewSecretKeyRef()
        .withName(Names.generatedSecret(in.name()))
        .withKey(GeneratedSecret.PYTHON_HASH_SEED_KEY)
        .endSecretKeyRef()
        .endValueFrom()
        .build();
  }

  private static Map<String, Quantity> requests(PoolSettings pool) {
    Map<String, Quantity> m = new TreeMap<>();
    if (pool.cpu() != null) {
      m.put("cpu", copy(pool.cpu()));
    }
    if (pool.memory() != null) {
      m.put("memory", copy(pool.memory()));
    }
    if (pool.usesGpus()) {
      m.put(pool.gpuType(), new Quantity(Integer.toString(pool.gpu())));
    }
    return m.isEmpty() ? null : m;
  }

  /** Memory is limited to its request (no overcommit surprises); GPUs must be limits. */
  private static Map<String, Quantity> limits(PoolSettings pool) {
    Map<String, Quantity> m = new TreeMap<>();
    if (pool.memory() != null) {
      m.put("memory", copy(pool.memory()));
    }
    if (pool.usesGpus()) {
      m.put(pool.gpuType(), new Quantity(Integer.toString(pool.gpu())));
    }
    return m.isEmpty() ? null : m;
  }

  /**
   * vLLM and SGLang images run as root and write their caches (Hugging Face, torch compile, Triton,
   * FlashInfer JIT) under the root file system and /root: privilege escalation is closed and every
   * capability dropped (a CUDA process needs none: the GPU comes through the device plugin), but
   * they keep root and a writable root file system (docs/operations.md, "Hardening"). Infera's
   * simulator gets the restricted profile.
   */
  private static SecurityContext engineSecurity(Engine engine) {
    if (engine == Engine.SIM) {
      SecurityContext sc = Common.restrictedContainer();
      sc.setRunAsUser(Defaults.NON_ROOT_UID);
      sc.setRunAsGroup(Defaults.NON_ROOT_UID);
      return sc;
    }
    return new SecurityContextBuilder()
        .withAllowPrivilegeEscalation(false)
        .withCapabilities(Common.dropAll())
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .build();
  }

  /**
   * {@code /dev/shm} as an in-memory emptyDir: sized by {@code sharedMemory}; unbounded (the pod's
   * memory) for GPU engines without one; none for the simulator without one.
   */
  private static Optional<Volume> shmVolume(RenderInputs in, PoolSettings pool) {
    if (pool.sharedMemory() == null && !in.engine().loadsModelWeights()) {
      return Optional.empty();
    }
    return Optional.of(
        new VolumeBuilder()
            .withName(SHM_VOLUME)
            .withNewEmptyDir()
            .withMedium("Memory")
            .withSizeLimit(copy(pool.sharedMemory()))
            .endEmptyDir()
            .build());
  }

  /** Beyond the startup probe's budget, so a slow model load is not reported as a stuck rollout. */
  private static int progressDeadlineSeconds(RenderInputs in) {
    return in.engine().loadsModelWeights()
        ? Defaults.ENGINE_STARTUP_PERIOD_SECONDS * Defaults.ENGINE_STARTUP_FAILURES + 600
        : 600;
  }

  private static io.fabric8.kubernetes.api.model.ObjectMeta meta(
      RenderInputs in, PoolSettings pool) {
    return Common.meta(
        in, Names.pool(in.name(), pool.name()), Labels.pool(in.name(), pool.name(), pool.role()));
  }

  private static Quantity copy(Quantity q) {
    return q == null ? null : new Quantity(q.getAmount(), q.getFormat());
  }
}
