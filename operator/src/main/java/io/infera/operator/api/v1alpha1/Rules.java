package io.infera.operator.api.v1alpha1;

/**
 * The CEL rules of the CRD and their messages, as constants shared by the annotations and {@link
 * io.infera.operator.validation.SpecValidator} (which re-checks them: fabric8's mock server and
 * {@code render} run no CEL).
 */
public final class Rules {

  public static final String UNIQUE_POOL_NAMES =
      "!has(self.pools) || self.pools.all(p, self.pools.exists_one(q, q.name == p.name))";
  public static final String UNIQUE_POOL_NAMES_MESSAGE = "pool names must be unique";

  public static final String PREFILL_DECODE_PAIRED =
      "!has(self.pools) || self.pools.exists(p, has(p.role) && p.role == 'prefill')"
          + " == self.pools.exists(p, has(p.role) && p.role == 'decode')";
  public static final String PREFILL_DECODE_PAIRED_MESSAGE =
      "a prefill pool requires a decode pool and vice versa";

  public static final String PAGE_SIZE_POWER_OF_TWO =
      "self in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]";
  public static final String PAGE_SIZE_POWER_OF_TWO_MESSAGE =
      "pageSize must be a power of two between 1 and 1024";

  public static final String NATS_URL_OR_DEPLOY = "!(has(self.url) && has(self.deploy))";
  public static final String NATS_URL_OR_DEPLOY_MESSAGE =
      "set either nats.url (an external NATS) or nats.deploy, not both";

  public static final String NATS_EXTERNAL_ONLY =
      "(!has(self.auth) && !has(self.tls)) || has(self.url)";
  public static final String NATS_EXTERNAL_ONLY_MESSAGE =
      "nats.auth and nats.tls are for an external NATS (nats.url); the operator's own NATS"
          + " generates its credentials";

  public static final String NATS_AUTH_ONE_KIND =
      "(has(self.user) && has(self.passwordSecret) && !has(self.credsSecret))"
          + " || (!has(self.user) && !has(self.passwordSecret) && has(self.credsSecret))";
  public static final String NATS_AUTH_ONE_KIND_MESSAGE =
      "nats.auth takes user with passwordSecret, or credsSecret";

  /** A NATS user name: no spaces, quotes or wildcards. */
  public static final String NATS_USER_PATTERN = "^[-._@a-zA-Z0-9]+$";

  public static final String TOKENIZER_ONE_SOURCE = "!(has(self.path) && has(self.hub))";
  public static final String TOKENIZER_ONE_SOURCE_MESSAGE =
      "set either tokenizer.path or tokenizer.hub, not both";

  public static final String TOKENIZER_LOCAL_NEEDS_SOURCE =
      "!has(self.mode) || self.mode != 'local' || has(self.path) || has(self.hub)";
  public static final String TOKENIZER_LOCAL_NEEDS_SOURCE_MESSAGE =
      "tokenizer.mode local needs tokenizer.path or tokenizer.hub";

  public static final String TOKENIZER_ONE_HUB_SOURCE = "!(has(self.cache) && has(self.download))";
  public static final String TOKENIZER_ONE_HUB_SOURCE_MESSAGE =
      "set either tokenizer.cache (a volume with a Hugging Face cache) or tokenizer.download, not"
          + " both";

  public static final String TOKENIZER_HUB_OPTIONS_NEED_HUB =
      "has(self.hub) || !(has(self.cache) || has(self.download) || has(self.revision))";
  public static final String TOKENIZER_HUB_OPTIONS_NEED_HUB_MESSAGE =
      "tokenizer.cache, tokenizer.download and tokenizer.revision need tokenizer.hub";

  public static final String SUB_PATH_RELATIVE =
      "!has(self.subPath) || (!self.subPath.startsWith('/') && !self.subPath.contains('..'))";
  public static final String SUB_PATH_RELATIVE_MESSAGE =
      "cache.subPath must be a relative path without '..'";

  /** A hub model id, {@code org/name} (the router's HubNames.MODEL_ID). */
  public static final String HUB_ID_PATTERN =
      "^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$";

  /** A branch, tag or commit; no segment starts with a dot (the router's HubNames.REVISION). */
  public static final String REVISION_PATTERN =
      "^[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)*$";

  public static final int MAX_REVISION_LENGTH = 128;

  /** A DNS-1123 subdomain: PVC and Secret names. */
  public static final String DNS_1123_SUBDOMAIN_PATTERN =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  /** A Secret data key. */
  public static final String SECRET_KEY_PATTERN = "^[-._a-zA-Z0-9]+$";

  /** A hub or mirror base URL. */
  public static final String HUB_ENDPOINT_PATTERN = "^https?://[^\\s/?#]+(/[^\\s?#]*)?$";

  /**
   * A value the pattern refuses passes here: the API server evaluates CEL rules even when the
   * pattern failed, and {@code int()} of a non-number would add a "type conversion error" to the
   * pattern's message.
   */
  public static final String PYTHON_HASH_SEED_RANGE =
      "self == 'random' || !self.matches('^[0-9]{1,10}$') || int(self) <= 4294967295";

  public static final String PYTHON_HASH_SEED_RANGE_MESSAGE =
      "pythonHashSeed must be 'random' or an integer in [0, 4294967295]";

  /** DNS-1035 label: Service names are built from it. */
  public static final String POOL_NAME_PATTERN = "^[a-z]([-a-z0-9]*[a-z0-9])?$";

  public static final String PYTHON_HASH_SEED_PATTERN = "^(random|[0-9]{1,10})$";

  /** An extended resource name such as {@code nvidia.com/gpu} or {@code amd.com/gpu}. */
  public static final String GPU_TYPE_PATTERN = "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[-a-zA-Z0-9_.]+$";

  public static final String NATS_URL_PATTERN = "^(nats|tls)://.+$";

  /** JetStream stream and KV bucket names. */
  public static final String NATS_NAME_PATTERN = "^[A-Za-z0-9_-]+$";

  /** Dot-separated subject tokens without wildcards. */
  public static final String SUBJECT_PREFIX_PATTERN = "^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$";

  /**
   * Pool-level: the NixlConnector role of a prefill pool must produce KV and that of a decode pool
   * consume it (vLLM's {@code KVProducer} and {@code KVConsumer} roles); mixed pools move no KV.
   */
  public static final String KV_TRANSFER_ROLE_FITS_POOL_ROLE =
      "!has(self.kvTransferRole) || (has(self.role) && ((self.role == 'prefill' &&"
          + " self.kvTransferRole != 'kv_consumer') || (self.role == 'decode' &&"
          + " self.kvTransferRole != 'kv_producer')))";

  public static final String KV_TRANSFER_ROLE_FITS_POOL_ROLE_MESSAGE =
      "kvTransferRole applies to prefill and decode pools only: a prefill pool must produce KV"
          + " (kv_producer or kv_both), a decode pool consume it (kv_consumer or kv_both)";

  /** Pool-level: only SGLang decode pools have a decode-side radix cache to switch. */
  public static final String DECODE_RADIX_CACHE_ON_DECODE =
      "!has(self.decodeRadixCache) || (has(self.role) && self.role == 'decode')";

  public static final String DECODE_RADIX_CACHE_ON_DECODE_MESSAGE =
      "decodeRadixCache applies to decode pools only";

  /** Spec-level: the NixlConnector role is a vLLM setting. */
  public static final String KV_TRANSFER_ROLE_VLLM_ONLY =
      "!has(self.pools) || !has(self.engine) || self.engine == 'vllm'"
          + " || self.pools.all(p, !has(p.kvTransferRole))";

  public static final String KV_TRANSFER_ROLE_VLLM_ONLY_MESSAGE =
      "pools[].kvTransferRole applies to engine vllm only";

  /** Spec-level: the decode-side radix cache is an SGLang setting. */
  public static final String DECODE_RADIX_CACHE_SGLANG_ONLY =
      "!has(self.pools) || (has(self.engine) && self.engine == 'sglang')"
          + " || self.pools.all(p, !has(p.decodeRadixCache))";

  public static final String DECODE_RADIX_CACHE_SGLANG_ONLY_MESSAGE =
      "pools[].decodeRadixCache applies to engine sglang only";

  /**
   * Spec-level: ATOM's KV-event publisher binds one endpoint in every data-parallel engine process
   * (no per-rank port offset), so a second rank could not bind it (docs/atom.md).
   */
  public static final String ATOM_ONE_DATA_PARALLEL_RANK =
      "!has(self.pools) || !has(self.engine) || self.engine != 'atom'"
          + " || self.pools.all(p, !has(p.dataParallelSize) || p.dataParallelSize == 1)";

  public static final String ATOM_ONE_DATA_PARALLEL_RANK_MESSAGE =
      "pools[].dataParallelSize must be 1 with engine atom: ATOM's KV-event publisher binds the"
          + " same endpoint in every data-parallel rank";

  /**
   * Spec-level: ATOM's server has no {@code /tokenize}, so the routers tokenize locally; without a
   * path or hub the tokenizer mode defaults to engine, which ATOM cannot answer (docs/atom.md).
   */
  public static final String ATOM_LOCAL_TOKENIZER =
      "!has(self.engine) || self.engine != 'atom' || (has(self.router) &&"
          + " has(self.router.tokenizer) && (has(self.router.tokenizer.path) ||"
          + " has(self.router.tokenizer.hub)) && (!has(self.router.tokenizer.mode) ||"
          + " self.router.tokenizer.mode == 'local'))";

  public static final String ATOM_LOCAL_TOKENIZER_MESSAGE =
      "engine atom needs router.tokenizer.path or router.tokenizer.hub and tokenizer mode local:"
          + " ATOM serves no /tokenize";

  public static final int MAX_POOLS = 16;

  /**
   * The largest {@code dataParallelSize}: rank r publishes KV events on the PUB base port + r and
   * answers replays on the replay base + r, so the two ranges must not meet (see {@code
   * Defaults.REPLAY_PORT}); 32 ranks is more than one node's GPUs.
   */
  public static final int MAX_DATA_PARALLEL_SIZE = 32;

  /** {@code spec.router.index.maxBlocks}: a billion blocks is about 100 GB of router memory. */
  public static final long MAX_INDEX_BLOCKS = 1_000_000_000L;

  public static final int MAX_POOL_NAME_LENGTH = 40;

  /**
   * Router-level: decode input demand is a kv-aware feature (the router's ConfigLoader refuses
   * {@code shadow} and {@code on} under another {@code policy.name}).
   */
  public static final String DECODE_INPUT_DEMAND_KV_AWARE =
      "!has(self.decodeInputDemand) || self.decodeInputDemand == 'off' || !has(self.policy)"
          + " || self.policy == 'kv-aware'";

  public static final String DECODE_INPUT_DEMAND_KV_AWARE_MESSAGE =
      "decodeInputDemand shadow or on requires policy kv-aware";

  /**
   * Router-level: the request weight is a term of the demand cost, which {@code off} does not
   * compute (the router refuses a weight above 0 with {@code off}).
   */
  public static final String DECODE_REQUEST_WEIGHT_NEEDS_DEMAND =
      "!has(self.decodeRequestWeight) || self.decodeRequestWeight == 0.0"
          + " || (has(self.decodeInputDemand) && self.decodeInputDemand != 'off')";

  public static final String DECODE_REQUEST_WEIGHT_NEEDS_DEMAND_MESSAGE =
      "decodeRequestWeight above 0 needs decodeInputDemand shadow or on";

  /**
   * {@code spec.router.decodeRequestWeight}: the router's DecodeDemandConfig.MAX_REQUEST_WEIGHT.
   */
  public static final double MAX_DECODE_REQUEST_WEIGHT = 1e9;

  /**
   * {@code spec.router.sessionAffinity.header}: an HTTP header name (RFC 9110 token characters, as
   * the router's SessionAffinityConfig checks), or empty: no header source.
   */
  public static final String SESSION_HEADER_PATTERN = "^[-!#$%&'*+.^_`|~0-9A-Za-z]{0,128}$";

  /** The router's SessionAffinityConfig bounds. */
  public static final int MAX_SESSION_AFFINITY_SESSIONS = 10_000_000;

  public static final long MIN_SESSION_AFFINITY_TTL_MS = 1000;
  public static final long MAX_SESSION_AFFINITY_TTL_MS = 7 * 86_400_000L;
  public static final int MAX_SESSION_AFFINITY_KEY_BYTES = 4096;

  /** The router's MultimodalConfig.MAX_AFFINITY_ENTRIES. */
  public static final int MAX_MULTIMODAL_AFFINITY_ENTRIES = 1_000_000;

  private Rules() {}
}
