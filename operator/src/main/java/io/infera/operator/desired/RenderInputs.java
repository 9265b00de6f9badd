package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.infera.operator.api.v1alpha1.ComputeResources;
import io.infera.operator.api.v1alpha1.DecodeInputDemand;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.InferaDeploymentSpec;
import io.infera.operator.api.v1alpha1.KvTransferRole;
import io.infera.operator.api.v1alpha1.NatsAuthSpec;
import io.infera.operator.api.v1alpha1.NatsDeploySpec;
import io.infera.operator.api.v1alpha1.NatsSpec;
import io.infera.operator.api.v1alpha1.NatsTlsSpec;
import io.infera.operator.api.v1alpha1.NetworkPolicySpec;
import io.infera.operator.api.v1alpha1.NetworkPolicySpec.ScraperSpec;
import io.infera.operator.api.v1alpha1.PoolResources;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.PoolSpec;
import io.infera.operator.api.v1alpha1.PrefillGuardRelease;
import io.infera.operator.api.v1alpha1.RouterPolicy;
import io.infera.operator.api.v1alpha1.RouterSpec;
import io.infera.operator.api.v1alpha1.SecretKeyRef;
import io.infera.operator.api.v1alpha1.SessionAffinityMode;
import io.infera.operator.api.v1alpha1.SessionAffinitySpec;
import io.infera.operator.api.v1alpha1.TokenizerDownload;
import io.infera.operator.api.v1alpha1.TokenizerMode;
import io.infera.operator.api.v1alpha1.TokenizerSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * An {@code InferaDeployment} with every default resolved: the one input of every builder.
 *
 * <p>Built by {@link #of} from a resource that {@link io.infera.operator.validation.SpecValidator}
 * accepted; the builders never look at the raw resource. Pools are sorted by name so that
 * reordering {@code spec.pools} changes no child object.
 *
 * @param uid the resource's uid, null when rendered from a file (the owner reference then has none)
 * @param pythonHashSeed the spec's value, or null: pools then read the generated Secret's
 */
public record RenderInputs(
    String name,
    String namespace,
    String uid,
    String model,
    Engine engine,
    int pageSize,
    String pythonHashSeed,
    RouterSettings router,
    NatsSettings nats,
    NetworkPolicySettings networkPolicy,
    List<PoolSettings> pools) {

  /** Namespace of a resource read from a file without one. */
  public static final String DEFAULT_NAMESPACE = "default";

  public RenderInputs {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
    pools = List.copyOf(pools);
  }

  /**
   * The NetworkPolicies (docs/operations.md, "Network policies").
   *
   * @param scraper whether a metrics scraper is allowed in
   * @param scraperNamespaces its namespaces, null for the deployment's own
   * @param scraperPods its pods, null for every pod of those namespaces
   * @param operatorPods the operator's pods (never null)
   * @param operatorNamespaces the operator's namespaces (never null; empty selects every one)
   */
  public record NetworkPolicySettings(
      boolean enabled,
      boolean scraper,
      LabelSelector scraperNamespaces,
      LabelSelector scraperPods,
      LabelSelector operatorPods,
      LabelSelector operatorNamespaces) {}

  /**
   * The router and its RouterConfig settings. Quantities are never null.
   *
   * @param overlapWeight the fixed weight, or null: the router tunes it (with no per-role weight)
   * @param decodeInputDemand RouterConfig {@code policy.decodeInputDemand}, or null (unset: the
   *     router's default)
   * @param decodeRequestWeight {@code policy.decodeRequestWeight}, or null
   * @param prefillGuardRelease {@code policy.prefillGuardRelease}, or null
   * @param sessionAffinity {@code policy.sessionAffinity.*} (never null; its fields may be)
   * @param multimodalAffinityEntries {@code policy.multimodal.affinityEntries}, or null
   * @param indexMaxBlocks RouterConfig {@code index.maxBlocks}, or null for the router's default
   */
  public record RouterSettings(
      int replicas,
      String image,
      RouterPolicy policy,
      Double overlapWeight,
      Double prefillOverlapWeight,
      Double decodeOverlapWeight,
      DecodeInputDemand decodeInputDemand,
      Double decodeRequestWeight,
      PrefillGuardRelease prefillGuardRelease,
      SessionAffinitySettings sessionAffinity,
      Integer multimodalAffinityEntries,
      TokenizerSettings tokenizer,
      Long indexMaxBlocks,
      Quantity cpu,
      Quantity memory) {

    public RouterSettings {
      Objects.requireNonNull(sessionAffinity, "sessionAffinity");
    }
  }

  /**
   * RouterConfig {@code policy.sessionAffinity.*} as the resource sets them: each null when unset
   * (the router's default applies).
   *
   * @param header the session header; empty turns the header source off
   */
  public record SessionAffinitySettings(
      SessionAffinityMode mode,
      String header,
      Integer maxSessions,
      Long ttlMs,
      Integer maxKeyBytes) {

    /** Nothing set. */
    public static final SessionAffinitySettings UNSET =
        new SessionAffinitySettings(null, null, null, null, null);

    static SessionAffinitySettings of(SessionAffinitySpec s) {
      return s == null
          ? UNSET
          : new SessionAffinitySettings(
              s.getMode(), s.getHeader(), s.getMaxSessions(), s.getTtlMs(), s.getMaxKeyBytes());
    }
  }

  /**
   * @param source a path or hub id (null with mode engine)
   * @param hub whether {@code source} is a hub id (RouterConfig key {@code hub}) or a path
   * @param revision the hub revision the user set, or null (the router reads {@code main})
   * @param files where a hub id's files come from; null for a path and with mode engine
   */
  public record TokenizerSettings(
      TokenizerMode mode, String source, boolean hub, String revision, HubFiles files) {}

  /** How a hub tokenizer reaches the router pods' Hugging Face cache at {@code /hf}. */
  public sealed interface HubFiles {}

  /**
   * A PersistentVolumeClaim holding a Hugging Face cache, mounted read-only.
   *
   * @param subPath the cache's directory in the claim, or null for its root
   */
  public record HubCache(String claimName, String subPath) implements HubFiles {}

  /**
   * The router image's {@code fetch-tokenizer} as an init container, into an emptyDir.
   *
   * @param secretName Secret with the token (HF_TOKEN), or null for a public model
   * @param secretKey its key (never null when {@code secretName} is set)
   * @param endpoint the hub or a mirror (HF_ENDPOINT), or null for the default
   */
  public record HubDownload(String secretName, String secretKey, String endpoint)
      implements HubFiles {}

  /**
   * @param externalUrl the user's NATS, or null when the operator deploys one
   * @param externalAuth credentials on the user's NATS, or null (anonymous; always null when the
   *     operator deploys NATS: it generates them, see {@link NatsCredentials})
   * @param externalTls TLS to the user's NATS, or null
   */
  public record NatsSettings(
      String externalUrl,
      ExternalAuth externalAuth,
      ExternalTls externalTls,
      String image,
      Quantity storage,
      String storageClass,
      Quantity cpu,
      Quantity memory,
      String stream,
      String subjectPrefix,
      String snapshotBucket) {

    public boolean deployed() {
      return externalUrl == null;
    }
  }

  /**
   * A Secret key routers and relays read their external NATS credential from.
   *
   * @param user the NATS user, null with a credentials file
   * @param creds whether the key holds a {@code .creds} file (else the user's password)
   */
  public record ExternalAuth(String user, String secretName, String secretKey, boolean creds) {}

  /**
   * @param clientCertSecret a {@code kubernetes.io/tls} Secret, or null (no client certificate)
   */
  public record ExternalTls(String caSecret, String caKey, String clientCertSecret) {}

  /**
   * One pool. {@code cpu}, {@code memory}, {@code sharedMemory} may be null (not set). Lists and
   * maps are defensive copies.
   *
   * @param dataParallelSize data-parallel ranks per worker, each with its own KV-event sockets
   * @param kvTransferRole vLLM NixlConnector role, null on mixed pools
   * @param decodeRadixCache SGLang decode pools: whether the decode-side radix cache is on
   */
  public record PoolSettings(
      String name,
      PoolRole role,
      int replicas,
      String image,
      int dataParallelSize,
      KvTransferRole kvTransferRole,
      boolean decodeRadixCache,
      int gpu,
      String gpuType,
      Quantity cpu,
      Quantity memory,
      Quantity sharedMemory,
      List<String> args,
      List<EnvVar> env,
      Map<String, String> nodeSelector,
      List<Toleration> tolerations) {

    public PoolSettings {
      args = List.copyOf(args);
      env = List.copyOf(env);
      nodeSelector = new TreeMap<>(nodeSelector);
      tolerations = List.copyOf(tolerations);
    }

    public boolean usesGpus() {
      return gpu > 0;
    }
  }

  /**
   * Resolves the defaults of a resource the validator accepted.
   *
   * @throws IllegalArgumentException if a field the validator requires is missing
   */
  public static RenderInputs of(InferaDeployment idep) {
    Objects.requireNonNull(idep.getMetadata(), "metadata");
    InferaDeploymentSpec spec = idep.getSpec();
    if (spec == null || spec.getModel() == null) {
      throw new IllegalArgumentException("spec.model is required (validate the resource first)");
    }
    String ns = idep.getMetadata().getNamespace();
    // Defaults come from the POJOs' initializers, which a test ties to their @Default.
    InferaDeploymentSpec d = new InferaDeploymentSpec();
    Engine engine = or(spec.getEngine(), d.getEngine());
    String engineImage = or(spec.getImage(), Images.engine(engine));
    List<PoolSettings> pools = new ArrayList<>();
    for (PoolSpec p : or(spec.getPools(), List.<PoolSpec>of())) {
      pools.add(pool(p, engineImage, engine));
    }
    pools.sort(Comparator.comparing(PoolSettings::name));
    return new RenderInputs(
        idep.getMetadata().getName(),
        ns == null || ns.isEmpty() ? DEFAULT_NAMESPACE : ns,
        idep.getMetadata().getUid(),
        spec.getModel(),
        engine,
        or(spec.getPageSize(), d.getPageSize()),
        spec.getPythonHashSeed(),
        router(or(spec.getRouter(), d.getRouter()), ranks(pools)),
        nats(or(spec.getNats(), d.getNats())),
        networkPolicy(or(spec.getNetworkPolicy(), d.getNetworkPolicy())),
        pools);
  }

  /** The owner reference every child carries (controller, blocks the owner's deletion). */
  public OwnerReference ownerReference() {
    return new OwnerReferenceBuilder()
        .withApiVersion(InferaDeployment.API_VERSION)
        .withKind(InferaDeployment.KIND)
        .withName(name)
        .withUid(uid)
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /** Where routers and relays reach NATS. */
  public String natsUrl() {
    return nats.deployed()
        ? "nats://" + Names.nats(name) + ":" + Defaults.NATS_CLIENT_PORT
        : nats.externalUrl();
  }

  /** The pool called {@code pool}. */
  public PoolSettings pool(String pool) {
    return pools.stream()
        .filter(p -> p.name().equals(pool))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no pool " + pool + " in " + name));
  }

  /** A hub id with no cache volume is downloaded: a router pod has no Hugging Face cache. */
  private static HubFiles hubFiles(TokenizerSpec t) {
    if (t.getCache() != null) {
      return new HubCache(t.getCache().getClaimName(), t.getCache().getSubPath());
    }
    TokenizerDownload d = or(t.getDownload(), new TokenizerDownload());
    SecretKeyRef secret = d.getTokenSecret();
    return new HubDownload(
        secret == null ? null : secret.getName(),
        secret == null ? null : or(secret.getKey(), SecretKeyRef.DEFAULT_KEY),
        d.getEndpoint());
  }

  private static NetworkPolicySettings networkPolicy(NetworkPolicySpec n) {
    ScraperSpec scraper = n.getScraper();
    return new NetworkPolicySettings(
        or(n.getEnabled(), true),
        scraper != null,
        scraper == null ? null : selector(scraper.getNamespaceLabels()),
        scraper == null ? null : selector(scraper.getPodLabels()),
        selector(or(n.getOperatorPodLabels(), Map.of(Labels.NAME, Labels.OPERATOR_NAME))),
        // An empty selector: every namespace.
        or(selector(n.getOperatorNamespaceLabels()), new LabelSelectorBuilder().build()));
  }

  /** {@code matchLabels} of {@code labels}, sorted; null for null. */
  private static LabelSelector selector(Map<String, String> labels) {
    return labels == null
        ? null
        : new LabelSelectorBuilder().withMatchLabels(new TreeMap<>(labels)).build();
  }

  /** Worker ranks the routers index: every pool's replicas × data-parallel size. */
  private static int ranks(List<PoolSettings> pools) {
    long n = 0;
    for (PoolSettings p : pools) {
      n += (long) p.replicas() * p.dataParallelSize();
    }
    return (int) Math.min(Integer.MAX_VALUE, n);
  }

  private static RouterSettings router(RouterSpec r, int ranks) {
    RouterSpec d = new RouterSpec();
    ComputeResources res = or(r.getResources(), new ComputeResources());
    TokenizerSpec t = or(r.getTokenizer(), new TokenizerSpec());
    Long maxBlocks = r.getIndex() == null ? null : r.getIndex().getMaxBlocks();
    String source = t.getPath() != null ? t.getPath() : t.getHub();
    TokenizerMode mode =
        t.getMode() != null
            ? t.getMode()
            : source != null ? TokenizerMode.LOCAL : TokenizerMode.ENGINE;
    TokenizerSettings tok =
        mode == TokenizerMode.ENGINE
            ? new TokenizerSettings(mode, null, false, null, null)
            : t.getPath() != null
                ? new TokenizerSettings(mode, source, false, null, null)
                : new TokenizerSettings(mode, source, true, t.getRevision(), hubFiles(t));
    return new RouterSettings(
        or(r.getReplicas(), d.getReplicas()),
        or(r.getImage(), Images.ROUTER),
        or(r.getPolicy(), d.getPolicy()),
        r.getOverlapWeight(),
        r.getPrefillOverlapWeight(),
        r.getDecodeOverlapWeight(),
        r.getDecodeInputDemand(),
        r.getDecodeRequestWeight(),
        r.getPrefillGuardRelease(),
        SessionAffinitySettings.of(r.getSessionAffinity()),
        r.getMultimodal() == null ? null : r.getMultimodal().getAffinityEntries(),
        tok,
        maxBlocks,
        copy(res.getCpu(), Defaults.ROUTER_CPU),
        res.getMemory() != null
            ? copy(res.getMemory(), null)
            : Defaults.routerMemory(maxBlocks, ranks));
  }

  private static NatsSettings nats(NatsSpec n) {
    NatsSpec dn = new NatsSpec();
    NatsDeploySpec d = or(n.getDeploy(), new NatsDeploySpec());
    ComputeResources res = or(d.getResources(), new ComputeResources());
    NatsAuthSpec a = n.getUrl() == null ? null : n.getAuth();
    ExternalAuth auth = null;
    if (a != null && a.getCredsSecret() != null) {
      auth =
          new ExternalAuth(
              null,
              a.getCredsSecret().getName(),
              or(a.getCredsSecret().getKey(), NatsCredentials.DEFAULT_CREDS_KEY),
              true);
    } else if (a != null && a.getPasswordSecret() != null) {
      auth =
          new ExternalAuth(
              a.getUser(),
              a.getPasswordSecret().getName(),
              or(a.getPasswordSecret().getKey(), NatsCredentials.DEFAULT_PASSWORD_KEY),
              false);
    }
    NatsTlsSpec t = n.getUrl() == null ? null : n.getTls();
    ExternalTls tls =
        t == null || t.getCaSecret() == null
            ? null
            : new ExternalTls(
                t.getCaSecret().getName(),
                or(t.getCaSecret().getKey(), NatsCredentials.DEFAULT_CA_KEY),
                t.getClientCertSecret());
    return new NatsSettings(
        n.getUrl(),
        auth,
        tls,
        or(d.getImage(), Images.NATS),
        copy(d.getStorage(), Defaults.NATS_STORAGE),
        d.getStorageClass(),
        copy(res.getCpu(), Defaults.NATS_CPU),
        copy(res.getMemory(), Defaults.NATS_MEMORY),
        or(n.getStream(), dn.getStream()),
        or(n.getSubjectPrefix(), dn.getSubjectPrefix()),
        or(n.getSnapshotBucket(), dn.getSnapshotBucket()));
  }

  private static PoolSettings pool(PoolSpec p, String engineImage, Engine engine) {
    PoolSpec dp = new PoolSpec();
    PoolResources res = or(p.getResources(), new PoolResources());
    PoolResources dr = new PoolResources();
    PoolRole role = or(p.getRole(), dp.getRole());
    return new PoolSettings(
        p.getName(),
        role,
        or(p.getReplicas(), dp.getReplicas()),
        or(p.getImage(), engineImage),
        or(p.getDataParallelSize(), dp.getDataParallelSize()),
        role == PoolRole.MIXED ? null : or(p.getKvTransferRole(), KvTransferRole.forPool(role)),
        role == PoolRole.DECODE && or(p.getDecodeRadixCache(), true),
        or(res.getGpu(), dr.getGpu()),
        or(res.getGpuType(), engine.defaultGpuType()),
        copy(res.getCpu(), null),
        copy(res.getMemory(), null),
        copy(res.getSharedMemory(), null),
        or(p.getArgs(), List.of()),
        copyAll(p.getEnv(), e -> new EnvVarBuilder(e).build()),
        or(p.getNodeSelector(), Map.of()),
        copyAll(p.getTolerations(), t -> new TolerationBuilder(t).build()));
  }

  private static <T> List<T> copyAll(List<T> list, Function<T, T> copy) {
    List<T> out = new ArrayList<>();
    if (list != null) {
      list.forEach(x -> out.add(copy.apply(x)));
    }
    return out;
  }

  private static Quantity copy(Quantity q, String dflt) {
    if (q == null) {
      return dflt == null ? null : new Quantity(dflt);
    }
    return new Quantity(q.getAmount(), q.getFormat());
  }

  private static <T> T or(T value, T dflt) {
    return value != null ? value : dflt;
  }
}
