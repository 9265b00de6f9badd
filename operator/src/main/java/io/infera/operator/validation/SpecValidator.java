package io.infera.operator.validation;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.infera.operator.api.v1alpha1.ComputeResources;
import io.infera.operator.api.v1alpha1.DecodeInputDemand;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.InferaDeploymentSpec;
import io.infera.operator.api.v1alpha1.KvTransferRole;
import io.infera.operator.api.v1alpha1.MultimodalSpec;
import io.infera.operator.api.v1alpha1.NatsAuthSpec;
import io.infera.operator.api.v1alpha1.NatsDeploySpec;
import io.infera.operator.api.v1alpha1.NatsSpec;
import io.infera.operator.api.v1alpha1.NatsTlsSpec;
import io.infera.operator.api.v1alpha1.NetworkPolicySpec;
import io.infera.operator.api.v1alpha1.PoolResources;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.PoolSpec;
import io.infera.operator.api.v1alpha1.RouterPolicy;
import io.infera.operator.api.v1alpha1.RouterSpec;
import io.infera.operator.api.v1alpha1.Rules;
import io.infera.operator.api.v1alpha1.SecretKeyRef;
import io.infera.operator.api.v1alpha1.SessionAffinitySpec;
import io.infera.operator.api.v1alpha1.TokenizerCache;
import io.infera.operator.api.v1alpha1.TokenizerDownload;
import io.infera.operator.api.v1alpha1.TokenizerMode;
import io.infera.operator.api.v1alpha1.TokenizerSpec;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Re-checks an {@code InferaDeployment} against every rule of its CRD (required fields, ranges,
 * patterns, CEL) and the limits of the objects built from it (name lengths; the pod fields copied
 * into them verbatim, {@link PodFields}), in Java.
 */
public final class SpecValidator {

  /** Service names are built from the resource name: a DNS-1035 label. */
  private static final Pattern DNS_1035 = Pattern.compile(Rules.POOL_NAME_PATTERN);

  private static final Pattern DNS_1123_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  private static final Pattern POOL_NAME = Pattern.compile(Rules.POOL_NAME_PATTERN);
  private static final Pattern SEED = Pattern.compile(Rules.PYTHON_HASH_SEED_PATTERN);
  private static final Pattern GPU_TYPE = Pattern.compile(Rules.GPU_TYPE_PATTERN);
  private static final Pattern NATS_URL = Pattern.compile(Rules.NATS_URL_PATTERN);
  private static final Pattern NATS_NAME = Pattern.compile(Rules.NATS_NAME_PATTERN);
  private static final Pattern SUBJECT_PREFIX = Pattern.compile(Rules.SUBJECT_PREFIX_PATTERN);
  private static final Pattern HUB_ID = Pattern.compile(Rules.HUB_ID_PATTERN);
  private static final Pattern REVISION = Pattern.compile(Rules.REVISION_PATTERN);
  private static final Pattern DNS_1123_SUBDOMAIN =
      Pattern.compile(Rules.DNS_1123_SUBDOMAIN_PATTERN);
  private static final Pattern SECRET_KEY = Pattern.compile(Rules.SECRET_KEY_PATTERN);
  private static final Pattern NATS_USER = Pattern.compile(Rules.NATS_USER_PATTERN);
  private static final Pattern HUB_ENDPOINT = Pattern.compile(Rules.HUB_ENDPOINT_PATTERN);
  private static final Pattern SESSION_HEADER = Pattern.compile(Rules.SESSION_HEADER_PATTERN);

  /** The longest suffix the operator appends to the resource name for a Service. */
  private static final String LONGEST_FIXED_SUFFIX = "-router";

  private static final long MAX_PYTHON_HASH_SEED = 4294967295L;

  /** {@code <idep>-router} and {@code <idep>-nats} are the router's and NATS' objects. */
  private static final Set<String> RESERVED_POOL_NAMES = Set.of("router", "nats");

  private final List<Violation> out = new ArrayList<>();

  private SpecValidator() {}

  /** Every violation, in field order; empty when the resource is valid. */
  public static List<Violation> validate(InferaDeployment idep) {
    SpecValidator v = new SpecValidator();
    v.resource(idep);
    return List.copyOf(v.out);
  }

  private void resource(InferaDeployment idep) {
    if (idep.getApiVersion() != null
        && !InferaDeployment.API_VERSION.equals(idep.getApiVersion())) {
      add(
          "apiVersion",
          "expected " + InferaDeployment.API_VERSION + ", got " + idep.getApiVersion());
    }
    if (idep.getKind() != null && !InferaDeployment.KIND.equals(idep.getKind())) {
      add("kind", "expected " + InferaDeployment.KIND + ", got " + idep.getKind());
    }
    ObjectMeta meta = idep.getMetadata();
    String name = meta == null ? null : meta.getName();
    if (name == null || name.isEmpty()) {
      add("metadata.name", "required");
    } else if (!DNS_1035.matcher(name).matches()) {
      add(
          "metadata.name",
          "'"
              + name
              + "' is not a DNS-1035 label (lower-case letters, digits and '-', starting with a"
              + " letter): child Service names are built from it");
    } else if (name.length() + LONGEST_FIXED_SUFFIX.length() > 63) {
      add(
          "metadata.name",
          "'"
              + name
              + "' is too long: the router Service '"
              + name
              + LONGEST_FIXED_SUFFIX
              + "' would exceed 63 characters");
    }
    String ns = meta == null ? null : meta.getNamespace();
    if (ns != null
        && !ns.isEmpty()
        && (ns.length() > 63 || !DNS_1123_LABEL.matcher(ns).matches())) {
      add("metadata.namespace", "'" + ns + "' is not a DNS-1123 label");
    }
    InferaDeploymentSpec spec = idep.getSpec();
    if (spec == null) {
      add("spec", "required");
      return;
    }
    spec(spec, name != null && DNS_1035.matcher(name).matches() ? name : null);
  }

  private void spec(InferaDeploymentSpec s, String name) {
    if (s.getModel() == null || s.getModel().isBlank()) {
      add("spec.model", "required (the model every engine serves)");
    } else if (s.getModel().length() > 256) {
      add("spec.model", "longer than 256 characters");
    }
    nonBlankIfSet("spec.image", s.getImage());
    Integer pageSize = s.getPageSize();
    if (pageSize != null && (pageSize < 1 || pageSize > 1024 || Integer.bitCount(pageSize) != 1)) {
      add("spec.pageSize", Rules.PAGE_SIZE_POWER_OF_TWO_MESSAGE + ", got " + pageSize);
    }
    String seed = s.getPythonHashSeed();
    if (seed != null) {
      if (!SEED.matcher(seed).matches()) {
        add("spec.pythonHashSeed", "expected an integer or 'random', got '" + seed + "'");
      } else if (!seed.equals("random") && Long.parseLong(seed) > MAX_PYTHON_HASH_SEED) {
        add("spec.pythonHashSeed", Rules.PYTHON_HASH_SEED_RANGE_MESSAGE + ", got " + seed);
      }
    }
    if (s.getRouter() != null) {
      router(s.getRouter());
    }
    if (s.getNats() != null) {
      nats(s.getNats());
    }
    if (s.getNetworkPolicy() != null) {
      networkPolicy(s.getNetworkPolicy());
    }
    pools(s.getPools(), name);
    engineSettings(s);
  }

  /** Pool fields that belong to one engine (the spec-level CEL rules). */
  private void engineSettings(InferaDeploymentSpec s) {
    if (s.getPools() == null) {
      return;
    }
    Engine engine = s.getEngine() == null ? Engine.VLLM : s.getEngine();
    boolean kvRole = false;
    boolean radix = false;
    for (PoolSpec p : s.getPools()) {
      kvRole |= p != null && p.getKvTransferRole() != null;
      radix |= p != null && p.getDecodeRadixCache() != null;
    }
    if (kvRole && engine != Engine.VLLM) {
      add(
          "spec.pools",
          Rules.KV_TRANSFER_ROLE_VLLM_ONLY_MESSAGE + " (engine is " + engine.value() + ")");
    }
    if (radix && engine != Engine.SGLANG) {
      add(
          "spec.pools",
          Rules.DECODE_RADIX_CACHE_SGLANG_ONLY_MESSAGE + " (engine is " + engine.value() + ")");
    }
    if (engine == Engine.ATOM) {
      TokenizerSpec t = s.getRouter() == null ? null : s.getRouter().getTokenizer();
      if (t == null
          || (t.getPath() == null && t.getHub() == null)
          || (t.getMode() != null && t.getMode() != TokenizerMode.LOCAL)) {
        add("spec.router.tokenizer", Rules.ATOM_LOCAL_TOKENIZER_MESSAGE);
      }
      for (int i = 0; i < s.getPools().size(); i++) {
        PoolSpec p = s.getPools().get(i);
        if (p != null && p.getDataParallelSize() != null && p.getDataParallelSize() != 1) {
          add(
              "spec.pools[" + i + "].dataParallelSize",
              Rules.ATOM_ONE_DATA_PARALLEL_RANK_MESSAGE + " (got " + p.getDataParallelSize() + ")");
        }
      }
    }
    if (engine == Engine.VLLM) {
      for (int i = 0; i < s.getPools().size(); i++) {
        PoolSpec p = s.getPools().get(i);
        if (p != null && p.getArgs() != null) {
          HashAlgo.check("spec.pools[" + i + "].args", p.getArgs(), this::add);
        }
      }
    }
  }

  private void networkPolicy(NetworkPolicySpec n) {
    String f = "spec.networkPolicy";
    labels(f + ".operatorPodLabels", n.getOperatorPodLabels());
    labels(f + ".operatorNamespaceLabels", n.getOperatorNamespaceLabels());
    if (n.getScraper() != null) {
      labels(f + ".scraper.namespaceLabels", n.getScraper().getNamespaceLabels());
      labels(f + ".scraper.podLabels", n.getScraper().getPodLabels());
    }
  }

  /** Labels a NetworkPolicy peer selects on (the same rules as node labels). */
  private void labels(String f, java.util.Map<String, String> labels) {
    if (labels == null) {
      return;
    }
    labels.forEach(
        (k, v) -> {
          if (k == null || k.isEmpty() || v == null) {
            add(f, "keys and values must be strings");
          }
        });
    PodFields.nodeSelector(f, labels, this::add);
  }

  private void router(RouterSpec r) {
    minZero("spec.router.replicas", r.getReplicas());
    nonBlankIfSet("spec.router.image", r.getImage());
    weight("spec.router.overlapWeight", r.getOverlapWeight());
    weight("spec.router.prefillOverlapWeight", r.getPrefillOverlapWeight());
    weight("spec.router.decodeOverlapWeight", r.getDecodeOverlapWeight());
    decodeDemand(r);
    sessionAffinity(r.getSessionAffinity());
    MultimodalSpec m = r.getMultimodal();
    if (m != null) {
      range(
          "spec.router.multimodal.affinityEntries",
          m.getAffinityEntries(),
          1,
          Rules.MAX_MULTIMODAL_AFFINITY_ENTRIES);
    }
    TokenizerSpec t = r.getTokenizer();
    if (t != null) {
      nonBlankIfSet("spec.router.tokenizer.path", t.getPath());
      nonBlankIfSet("spec.router.tokenizer.hub", t.getHub());
      if (t.getPath() != null && t.getHub() != null) {
        add("spec.router.tokenizer", Rules.TOKENIZER_ONE_SOURCE_MESSAGE);
      }
      if (t.getMode() == TokenizerMode.LOCAL && t.getPath() == null && t.getHub() == null) {
        add("spec.router.tokenizer", Rules.TOKENIZER_LOCAL_NEEDS_SOURCE_MESSAGE);
      }
      hubTokenizer(t);
    }
    compute("spec.router.resources", r.getResources());
    if (r.getIndex() != null && r.getIndex().getMaxBlocks() != null) {
      long max = r.getIndex().getMaxBlocks();
      if (max < 1 || max > Rules.MAX_INDEX_BLOCKS) {
        add(
            "spec.router.index.maxBlocks",
            "must be in [1, " + Rules.MAX_INDEX_BLOCKS + "], got " + max);
      }
    }
  }

  /** The rules of the router's ConfigLoader for {@code policy.decodeInputDemand} and its weight. */
  private void decodeDemand(RouterSpec r) {
    DecodeInputDemand demand = r.getDecodeInputDemand();
    boolean books = demand != null && demand != DecodeInputDemand.OFF;
    RouterPolicy policy = r.getPolicy() == null ? RouterPolicy.KV_AWARE : r.getPolicy();
    if (books && policy != RouterPolicy.KV_AWARE) {
      add(
          "spec.router",
          Rules.DECODE_INPUT_DEMAND_KV_AWARE_MESSAGE
              + " (decodeInputDemand "
              + demand.value()
              + ", policy "
              + policy.value()
              + ")");
    }
    Double w = r.getDecodeRequestWeight();
    if (w == null) {
      return;
    }
    if (!Double.isFinite(w) || w < 0 || w > Rules.MAX_DECODE_REQUEST_WEIGHT) {
      add("spec.router.decodeRequestWeight", "must be a finite number in [0, 1e9], got " + w);
    } else if (w > 0 && !books) {
      add(
          "spec.router",
          Rules.DECODE_REQUEST_WEIGHT_NEEDS_DEMAND_MESSAGE
              + " (decodeRequestWeight "
              + w
              + ", decodeInputDemand "
              + (demand == null ? "unset: off" : demand.value())
              + ")");
    }
  }

  /** The bounds of the router's SessionAffinityConfig. */
  private void sessionAffinity(SessionAffinitySpec s) {
    if (s == null) {
      return;
    }
    String f = "spec.router.sessionAffinity";
    pattern(
        f + ".header",
        s.getHeader(),
        SESSION_HEADER,
        "an HTTP header name (letters, digits, '-' and !#$%&'*+.^_`|~, at most 128), or empty");
    range(f + ".maxSessions", s.getMaxSessions(), 1, Rules.MAX_SESSION_AFFINITY_SESSIONS);
    range(
        f + ".ttlMs",
        s.getTtlMs(),
        Rules.MIN_SESSION_AFFINITY_TTL_MS,
        Rules.MAX_SESSION_AFFINITY_TTL_MS);
    range(f + ".maxKeyBytes", s.getMaxKeyBytes(), 1, Rules.MAX_SESSION_AFFINITY_KEY_BYTES);
  }

  private void range(String f, Number v, long min, long max) {
    if (v != null && (v.longValue() < min || v.longValue() > max)) {
      add(f, "must be in [" + min + ", " + max + "], got " + v);
    }
  }

  private void hubTokenizer(TokenizerSpec t) {
    String f = "spec.router.tokenizer";
    pattern(f + ".hub", t.getHub(), HUB_ID, "a hub id ORG/NAME");
    maxLength(f + ".revision", t.getRevision(), Rules.MAX_REVISION_LENGTH);
    pattern(f + ".revision", t.getRevision(), REVISION, "a branch, tag or commit");
    if (t.getCache() != null && t.getDownload() != null) {
      add(f, Rules.TOKENIZER_ONE_HUB_SOURCE_MESSAGE);
    }
    if (t.getHub() == null
        && (t.getCache() != null || t.getDownload() != null || t.getRevision() != null)) {
      add(f, Rules.TOKENIZER_HUB_OPTIONS_NEED_HUB_MESSAGE);
    }
    TokenizerCache c = t.getCache();
    if (c != null) {
      if (c.getClaimName() == null) {
        add(f + ".cache.claimName", "required");
      }
      maxLength(f + ".cache.claimName", c.getClaimName(), 253);
      pattern(f + ".cache.claimName", c.getClaimName(), DNS_1123_SUBDOMAIN, "a DNS-1123 subdomain");
      maxLength(f + ".cache.subPath", c.getSubPath(), 1024);
      if (c.getSubPath() != null
          && (c.getSubPath().startsWith("/") || c.getSubPath().contains(".."))) {
        add(f + ".cache", Rules.SUB_PATH_RELATIVE_MESSAGE);
      }
    }
    TokenizerDownload d = t.getDownload();
    if (d != null) {
      maxLength(f + ".download.endpoint", d.getEndpoint(), 2048);
      pattern(f + ".download.endpoint", d.getEndpoint(), HUB_ENDPOINT, "an http(s) URL");
      secretKeyRef(f + ".download.tokenSecret", d.getTokenSecret());
    }
  }

  private void secretKeyRef(String sf, SecretKeyRef s) {
    if (s == null) {
      return;
    }
    if (s.getName() == null) {
      add(sf + ".name", "required");
    }
    maxLength(sf + ".name", s.getName(), 253);
    pattern(sf + ".name", s.getName(), DNS_1123_SUBDOMAIN, "a DNS-1123 subdomain");
    maxLength(sf + ".key", s.getKey(), 253);
    pattern(sf + ".key", s.getKey(), SECRET_KEY, "letters, digits, '-', '_' and '.'");
  }

  private void natsClient(NatsSpec n) {
    if ((n.getAuth() != null || n.getTls() != null) && n.getUrl() == null) {
      add("spec.nats", Rules.NATS_EXTERNAL_ONLY_MESSAGE);
    }
    NatsAuthSpec a = n.getAuth();
    if (a != null) {
      boolean user = a.getUser() != null && a.getPasswordSecret() != null;
      boolean creds = a.getCredsSecret() != null;
      boolean userPart = a.getUser() != null || a.getPasswordSecret() != null;
      if (!((user && !creds) || (!userPart && creds))) {
        add("spec.nats.auth", Rules.NATS_AUTH_ONE_KIND_MESSAGE);
      }
      maxLength("spec.nats.auth.user", a.getUser(), 256);
      pattern("spec.nats.auth.user", a.getUser(), NATS_USER, "letters, digits, '-', '_', '.', '@'");
      secretKeyRef("spec.nats.auth.passwordSecret", a.getPasswordSecret());
      secretKeyRef("spec.nats.auth.credsSecret", a.getCredsSecret());
    }
    NatsTlsSpec t = n.getTls();
    if (t != null) {
      if (t.getCaSecret() == null) {
        add("spec.nats.tls.caSecret", "required");
      }
      secretKeyRef("spec.nats.tls.caSecret", t.getCaSecret());
      maxLength("spec.nats.tls.clientCertSecret", t.getClientCertSecret(), 253);
      pattern(
          "spec.nats.tls.clientCertSecret",
          t.getClientCertSecret(),
          DNS_1123_SUBDOMAIN,
          "a DNS-1123 subdomain");
    }
  }

  private void maxLength(String f, String v, int max) {
    if (v != null && v.length() > max) {
      add(f, "at most " + max + " characters, got " + v.length());
    }
  }

  private void nats(NatsSpec n) {
    if (n.getUrl() != null && n.getDeploy() != null) {
      add("spec.nats", Rules.NATS_URL_OR_DEPLOY_MESSAGE);
    }
    natsClient(n);
    if (n.getUrl() != null && !NATS_URL.matcher(n.getUrl()).matches()) {
      add(
          "spec.nats.url",
          "expected nats://host:port or tls://host:port, got '" + n.getUrl() + "'");
    }
    pattern("spec.nats.stream", n.getStream(), NATS_NAME, "letters, digits, '-' and '_'");
    pattern(
        "spec.nats.snapshotBucket",
        n.getSnapshotBucket(),
        NATS_NAME,
        "letters, digits, '-' and '_'");
    pattern(
        "spec.nats.subjectPrefix",
        n.getSubjectPrefix(),
        SUBJECT_PREFIX,
        "dot-separated tokens of letters, digits, '-' and '_', no wildcards");
    NatsDeploySpec d = n.getDeploy();
    if (d != null) {
      nonBlankIfSet("spec.nats.deploy.image", d.getImage());
      nonBlankIfSet("spec.nats.deploy.storageClass", d.getStorageClass());
      if (d.getStorageClass() != null
          && !d.getStorageClass().isBlank()
          && !PodFields.isDnsSubdomain(d.getStorageClass())) {
        add(
            "spec.nats.deploy.storageClass",
            "'"
                + d.getStorageClass()
                + "' is not a StorageClass name (a DNS subdomain: lower-case letters, digits,"
                + " '-' and '.')");
      }
      quantity("spec.nats.deploy.storage", d.getStorage(), true);
      compute("spec.nats.deploy.resources", d.getResources());
    }
  }

  private void pools(List<PoolSpec> pools, String name) {
    if (pools == null || pools.isEmpty()) {
      add("spec.pools", "at least one pool is required");
      return;
    }
    if (pools.size() > Rules.MAX_POOLS) {
      add("spec.pools", "at most " + Rules.MAX_POOLS + " pools, got " + pools.size());
    }
    Set<String> seen = new HashSet<>();
    Set<String> duplicates = new LinkedHashSet<>();
    boolean prefill = false;
    boolean decode = false;
    for (int i = 0; i < pools.size(); i++) {
      PoolSpec p = pools.get(i);
      String f = "spec.pools[" + i + "]";
      if (p == null) {
        add(f, "must be a mapping");
        continue;
      }
      pool(f, p, name);
      if (p.getName() != null && !seen.add(p.getName())) {
        duplicates.add(p.getName());
      }
      prefill |= p.getRole() == PoolRole.PREFILL;
      decode |= p.getRole() == PoolRole.DECODE;
    }
    if (!duplicates.isEmpty()) {
      add(
          "spec.pools",
          Rules.UNIQUE_POOL_NAMES_MESSAGE + " (duplicated: " + String.join(", ", duplicates) + ")");
    }
    if (prefill != decode) {
      add(
          "spec.pools",
          Rules.PREFILL_DECODE_PAIRED_MESSAGE
              + " (found a "
              + (prefill ? "prefill" : "decode")
              + " pool and no "
              + (prefill ? "decode" : "prefill")
              + " pool)");
    }
  }

  private void pool(String f, PoolSpec p, String deploymentName) {
    String name = p.getName();
    if (name == null || name.isEmpty()) {
      add(f + ".name", "required");
    } else if (name.length() > Rules.MAX_POOL_NAME_LENGTH || !POOL_NAME.matcher(name).matches()) {
      add(
          f + ".name",
          "'"
              + name
              + "' is not a DNS label of at most "
              + Rules.MAX_POOL_NAME_LENGTH
              + " characters (lower-case letters, digits and '-', starting with a letter)");
    } else if (RESERVED_POOL_NAMES.contains(name)) {
      add(
          f + ".name",
          "'"
              + name
              + "' is reserved: the pool's Deployment and Service would take the names of the"
              + " operator's "
              + name
              + " objects");
    } else if (deploymentName != null && deploymentName.length() + 1 + name.length() > 63) {
      add(
          f + ".name",
          "the pool Service '"
              + deploymentName
              + "-"
              + name
              + "' would exceed 63 characters; shorten the pool or the resource name");
    }
    minZero(f + ".replicas", p.getReplicas());
    nonBlankIfSet(f + ".image", p.getImage());
    Integer dp = p.getDataParallelSize();
    if (dp != null && (dp < 1 || dp > Rules.MAX_DATA_PARALLEL_SIZE)) {
      add(
          f + ".dataParallelSize",
          "must be in [1, "
              + Rules.MAX_DATA_PARALLEL_SIZE
              + "] (each rank binds its own KV-event ports), got "
              + dp);
    } else if (dp != null
        && p.getResources() != null
        && p.getResources().getGpu() != null
        && p.getResources().getGpu() > 0
        && p.getResources().getGpu() < dp) {
      add(
          f + ".dataParallelSize",
          dp
              + " data-parallel ranks need at least "
              + dp
              + " GPUs per worker, but resources.gpu is "
              + p.getResources().getGpu());
    }
    PoolRole role = p.getRole() == null ? PoolRole.MIXED : p.getRole();
    KvTransferRole kv = p.getKvTransferRole();
    if (kv != null
        && !(role == PoolRole.PREFILL && kv != KvTransferRole.KV_CONSUMER
            || role == PoolRole.DECODE && kv != KvTransferRole.KV_PRODUCER)) {
      add(
          f + ".kvTransferRole",
          Rules.KV_TRANSFER_ROLE_FITS_POOL_ROLE_MESSAGE
              + " (pool role "
              + role.value()
              + ", kvTransferRole "
              + kv.value()
              + ")");
    }
    if (p.getDecodeRadixCache() != null && role != PoolRole.DECODE) {
      add(
          f + ".decodeRadixCache",
          Rules.DECODE_RADIX_CACHE_ON_DECODE_MESSAGE + " (pool role " + role.value() + ")");
    }
    PoolResources r = p.getResources();
    if (r != null) {
      minZero(f + ".resources.gpu", r.getGpu());
      if (r.getGpuType() != null && !GPU_TYPE.matcher(r.getGpuType()).matches()) {
        add(
            f + ".resources.gpuType",
            "expected an extended resource name such as nvidia.com/gpu, got '"
                + r.getGpuType()
                + "'");
      }
      quantity(f + ".resources.cpu", r.getCpu(), false);
      quantity(f + ".resources.memory", r.getMemory(), false);
      quantity(f + ".resources.sharedMemory", r.getSharedMemory(), false);
    }
    if (p.getArgs() != null) {
      for (int i = 0; i < p.getArgs().size(); i++) {
        if (p.getArgs().get(i) == null) {
          add(f + ".args[" + i + "]", "must be a string");
        }
      }
    }
    if (p.getEnv() != null) {
      Set<String> names = new HashSet<>();
      for (int i = 0; i < p.getEnv().size(); i++) {
        EnvVar e = p.getEnv().get(i);
        if (e == null || e.getName() == null || e.getName().isEmpty()) {
          add(f + ".env[" + i + "].name", "required");
        } else if (!names.add(e.getName())) {
          add(f + ".env[" + i + "].name", "duplicate variable " + e.getName());
        }
        if (e != null) {
          PodFields.envSource(f + ".env[" + i + "]", e, this::add);
        }
      }
    }
    if (p.getNodeSelector() != null) {
      p.getNodeSelector()
          .forEach(
              (k, v) -> {
                if (k == null || k.isEmpty() || v == null) {
                  add(f + ".nodeSelector", "keys and values must be strings");
                }
              });
      PodFields.nodeSelector(f + ".nodeSelector", p.getNodeSelector(), this::add);
    }
    if (p.getTolerations() != null && p.getTolerations().contains(null)) {
      add(f + ".tolerations", "entries must be mappings");
    } else if (p.getTolerations() != null) {
      for (int i = 0; i < p.getTolerations().size(); i++) {
        PodFields.toleration(f + ".tolerations[" + i + "]", p.getTolerations().get(i), this::add);
      }
    }
  }

  private void compute(String f, ComputeResources r) {
    if (r != null) {
      quantity(f + ".cpu", r.getCpu(), false);
      quantity(f + ".memory", r.getMemory(), false);
    }
  }

  private void quantity(String f, Quantity q, boolean positive) {
    if (q == null) {
      return;
    }
    BigDecimal amount;
    try {
      amount = Quantity.getAmountInBytes(q);
    } catch (RuntimeException e) {
      add(f, "'" + q + "' is not a quantity (e.g. 500m, 4, 16Gi)");
      return;
    }
    if (amount.signum() < 0 || (positive && amount.signum() == 0)) {
      add(f, "must be " + (positive ? "positive" : "non-negative") + ", got " + q);
    }
  }

  private void minZero(String f, Integer v) {
    if (v != null && v < 0) {
      add(f, "must be >= 0, got " + v);
    }
  }

  private void weight(String f, Double w) {
    if (w != null && (!Double.isFinite(w) || w < 0)) {
      add(f, "must be a finite number >= 0, got " + w);
    }
  }

  private void nonBlankIfSet(String f, String v) {
    if (v != null && v.isBlank()) {
      add(f, "must not be empty when set");
    }
  }

  private void pattern(String f, String v, Pattern p, String expected) {
    if (v != null && !p.matcher(v).matches()) {
      add(f, "expected " + expected + ", got '" + v + "'");
    }
  }

  private void add(String field, String message) {
    out.add(new Violation(field, message));
  }
}
