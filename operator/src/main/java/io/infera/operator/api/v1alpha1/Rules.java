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

  public static final String TOKENIZER_ONE_SOURCE = "!(has(self.path) && has(self.hub))";
  public static final String TOKENIZER_ONE_SOURCE_MESSAGE =
      "set either tokenizer.path or tokenizer.hub, not both";

  public static final String TOKENIZER_LOCAL_NEEDS_SOURCE =
      "!has(self.mode) || self.mode != 'local' || has(self.path) || has(self.hub)";
  public static final String TOKENIZER_LOCAL_NEEDS_SOURCE_MESSAGE =
      "tokenizer.mode local needs tokenizer.path or tokenizer.hub";

  public static final String PYTHON_HASH_SEED_RANGE = "self == 'random' || int(self) <= 4294967295";
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

  public static final int MAX_POOLS = 16;
  public static final int MAX_POOL_NAME_LENGTH = 40;

  private Rules() {}
}
