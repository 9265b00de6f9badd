package io.infera.operator.validation;

import static io.infera.operator.testing.Fixtures.idep;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.infera.operator.api.v1alpha1.DecodeInputDemand;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.KvTransferRole;
import io.infera.operator.api.v1alpha1.MultimodalSpec;
import io.infera.operator.api.v1alpha1.NatsAuthSpec;
import io.infera.operator.api.v1alpha1.NatsDeploySpec;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.PrefillGuardRelease;
import io.infera.operator.api.v1alpha1.RouterPolicy;
import io.infera.operator.api.v1alpha1.Rules;
import io.infera.operator.api.v1alpha1.SecretKeyRef;
import io.infera.operator.api.v1alpha1.SessionAffinityMode;
import io.infera.operator.api.v1alpha1.SessionAffinitySpec;
import io.infera.operator.api.v1alpha1.TokenizerCache;
import io.infera.operator.api.v1alpha1.TokenizerDownload;
import io.infera.operator.api.v1alpha1.TokenizerMode;
import io.infera.operator.api.v1alpha1.TokenizerSpec;
import io.infera.operator.testing.Fixtures;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The Java twin of the CRD's schema and CEL rules refuses what the API server would. */
class SpecValidatorTest {

  /** One way to break a valid resource, the field it names and a fragment of the message. */
  record Case(String name, Consumer<InferaDeployment> breakIt, String field, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        // CEL rules (the mock server and render run no CEL).
        new Case(
            "duplicate pool names",
            i -> i.getSpec().getPools().get(1).setName("prefill"),
            "spec.pools",
            Rules.UNIQUE_POOL_NAMES_MESSAGE),
        new Case(
            "prefill without decode",
            i -> i.getSpec().getPools().get(1).setRole(PoolRole.MIXED),
            "spec.pools",
            Rules.PREFILL_DECODE_PAIRED_MESSAGE),
        new Case(
            "decode without prefill",
            i -> i.getSpec().getPools().get(0).setRole(PoolRole.MIXED),
            "spec.pools",
            Rules.PREFILL_DECODE_PAIRED_MESSAGE),
        new Case(
            "a consuming prefill pool",
            i -> i.getSpec().getPools().get(0).setKvTransferRole(KvTransferRole.KV_CONSUMER),
            "spec.pools[0].kvTransferRole",
            Rules.KV_TRANSFER_ROLE_FITS_POOL_ROLE_MESSAGE),
        new Case(
            "a producing decode pool",
            i -> i.getSpec().getPools().get(1).setKvTransferRole(KvTransferRole.KV_PRODUCER),
            "spec.pools[1].kvTransferRole",
            "(pool role decode, kvTransferRole kv_producer)"),
        new Case(
            "kvTransferRole on a mixed pool",
            i -> {
              i.getSpec().getPools().get(0).setRole(PoolRole.MIXED);
              i.getSpec().getPools().get(1).setRole(PoolRole.MIXED);
              i.getSpec().getPools().get(1).setKvTransferRole(KvTransferRole.KV_BOTH);
            },
            "spec.pools[1].kvTransferRole",
            "(pool role mixed"),
        new Case(
            "kvTransferRole with SGLang",
            i -> {
              i.getSpec().setEngine(Engine.SGLANG);
              i.getSpec().getPools().get(0).setKvTransferRole(KvTransferRole.KV_PRODUCER);
            },
            "spec.pools",
            Rules.KV_TRANSFER_ROLE_VLLM_ONLY_MESSAGE),
        new Case(
            "decodeRadixCache on a prefill pool",
            i -> {
              i.getSpec().setEngine(Engine.SGLANG);
              i.getSpec().getPools().get(0).setDecodeRadixCache(true);
            },
            "spec.pools[0].decodeRadixCache",
            Rules.DECODE_RADIX_CACHE_ON_DECODE_MESSAGE),
        new Case(
            "decodeRadixCache with vLLM",
            i -> i.getSpec().getPools().get(1).setDecodeRadixCache(false),
            "spec.pools",
            Rules.DECODE_RADIX_CACHE_SGLANG_ONLY_MESSAGE),
        new Case(
            "two data-parallel ranks with ATOM",
            i -> {
              i.getSpec().setEngine(Engine.ATOM);
              i.getSpec().getRouter().setTokenizer(new TokenizerSpec());
              i.getSpec().getRouter().getTokenizer().setHub("Qwen/Qwen3-0.6B");
              i.getSpec().getPools().get(1).setDataParallelSize(2);
              i.getSpec().getPools().get(1).getResources().setGpu(2);
            },
            "spec.pools[1].dataParallelSize",
            Rules.ATOM_ONE_DATA_PARALLEL_RANK_MESSAGE),
        new Case(
            "ATOM with the engine tokenizer",
            i -> {
              i.getSpec().setEngine(Engine.ATOM);
              i.getSpec().getRouter().setTokenizer(new TokenizerSpec());
              i.getSpec().getRouter().getTokenizer().setMode(TokenizerMode.ENGINE);
              i.getSpec().getRouter().getTokenizer().setHub("Qwen/Qwen3-0.6B");
            },
            "spec.router.tokenizer",
            Rules.ATOM_LOCAL_TOKENIZER_MESSAGE),
        // Data parallelism: each rank binds its own KV-event ports.
        new Case(
            "dataParallelSize 0",
            i -> i.getSpec().getPools().get(0).setDataParallelSize(0),
            "spec.pools[0].dataParallelSize",
            "must be in [1, 32]"),
        new Case(
            "dataParallelSize above the maximum",
            i -> {
              i.getSpec().getPools().get(0).setDataParallelSize(Rules.MAX_DATA_PARALLEL_SIZE + 1);
              i.getSpec().getPools().get(0).getResources().setGpu(64);
            },
            "spec.pools[0].dataParallelSize",
            "got 33"),
        new Case(
            "more ranks than GPUs",
            i -> i.getSpec().getPools().get(1).setDataParallelSize(2),
            "spec.pools[1].dataParallelSize",
            "2 data-parallel ranks need at least 2 GPUs per worker, but resources.gpu is 1"),
        // Names of the objects built from it.
        new Case(
            "pool named router",
            i -> i.getSpec().getPools().get(1).setName("router"),
            "spec.pools[1].name",
            "'router' is reserved"),
        new Case(
            "pool named nats",
            i -> i.getSpec().getPools().get(0).setName("nats"),
            "spec.pools[0].name",
            "'nats' is reserved"),
        new Case(
            "page size not a power of two",
            i -> i.getSpec().setPageSize(24),
            "spec.pageSize",
            Rules.PAGE_SIZE_POWER_OF_TWO_MESSAGE),
        new Case(
            "page size above 1024",
            i -> i.getSpec().setPageSize(2048),
            "spec.pageSize",
            Rules.PAGE_SIZE_POWER_OF_TWO_MESSAGE),
        new Case(
            "page size zero",
            i -> i.getSpec().setPageSize(0),
            "spec.pageSize",
            Rules.PAGE_SIZE_POWER_OF_TWO_MESSAGE),
        new Case(
            "nats url and deploy",
            i -> {
              i.getSpec().getNats().setUrl("nats://x:4222");
              i.getSpec().getNats().setDeploy(new NatsDeploySpec());
            },
            "spec.nats",
            Rules.NATS_URL_OR_DEPLOY_MESSAGE),
        new Case(
            "nats auth without an external url",
            i -> {
              NatsAuthSpec a = new NatsAuthSpec();
              SecretKeyRef creds = new SecretKeyRef();
              creds.setName("nats-creds");
              a.setCredsSecret(creds);
              i.getSpec().getNats().setAuth(a);
            },
            "spec.nats",
            Rules.NATS_EXTERNAL_ONLY_MESSAGE),
        new Case(
            "nats auth with a user and a creds file",
            i -> {
              i.getSpec().getNats().setUrl("nats://x:4222");
              NatsAuthSpec a = new NatsAuthSpec();
              SecretKeyRef s = new SecretKeyRef();
              s.setName("nats-creds");
              a.setCredsSecret(s);
              a.setUser("router");
              i.getSpec().getNats().setAuth(a);
            },
            "spec.nats.auth",
            Rules.NATS_AUTH_ONE_KIND_MESSAGE),
        new Case(
            "tokenizer path and hub",
            i -> {
              i.getSpec().getRouter().getTokenizer().setPath("/m");
              i.getSpec().getRouter().getTokenizer().setHub("org/m");
            },
            "spec.router.tokenizer",
            Rules.TOKENIZER_ONE_SOURCE_MESSAGE),
        new Case(
            "local tokenizer without source",
            i -> i.getSpec().getRouter().getTokenizer().setMode(TokenizerMode.LOCAL),
            "spec.router.tokenizer",
            Rules.TOKENIZER_LOCAL_NEEDS_SOURCE_MESSAGE),
        new Case(
            "tokenizer cache and download",
            i -> {
              TokenizerSpec t = i.getSpec().getRouter().getTokenizer();
              t.setHub("org/m");
              t.setCache(cache("hf-cache", null));
              t.setDownload(new TokenizerDownload());
            },
            "spec.router.tokenizer",
            Rules.TOKENIZER_ONE_HUB_SOURCE_MESSAGE),
        new Case(
            "tokenizer download without hub",
            i -> i.getSpec().getRouter().getTokenizer().setDownload(new TokenizerDownload()),
            "spec.router.tokenizer",
            Rules.TOKENIZER_HUB_OPTIONS_NEED_HUB_MESSAGE),
        new Case(
            "tokenizer revision with a path",
            i -> {
              i.getSpec().getRouter().getTokenizer().setPath("/m");
              i.getSpec().getRouter().getTokenizer().setRevision("main");
            },
            "spec.router.tokenizer",
            Rules.TOKENIZER_HUB_OPTIONS_NEED_HUB_MESSAGE),
        new Case(
            "cache subPath climbing out",
            i -> {
              i.getSpec().getRouter().getTokenizer().setHub("org/m");
              i.getSpec().getRouter().getTokenizer().setCache(cache("hf-cache", "a/../../etc"));
            },
            "spec.router.tokenizer.cache",
            Rules.SUB_PATH_RELATIVE_MESSAGE),
        new Case(
            "cache subPath absolute",
            i -> {
              i.getSpec().getRouter().getTokenizer().setHub("org/m");
              i.getSpec().getRouter().getTokenizer().setCache(cache("hf-cache", "/etc"));
            },
            "spec.router.tokenizer.cache",
            Rules.SUB_PATH_RELATIVE_MESSAGE),
        new Case(
            "cache claim not a name",
            i -> {
              i.getSpec().getRouter().getTokenizer().setHub("org/m");
              i.getSpec().getRouter().getTokenizer().setCache(cache("HF_Cache", null));
            },
            "spec.router.tokenizer.cache.claimName",
            "DNS-1123 subdomain"),
        new Case(
            "cache without claim",
            i -> {
              i.getSpec().getRouter().getTokenizer().setHub("org/m");
              i.getSpec().getRouter().getTokenizer().setCache(cache(null, null));
            },
            "spec.router.tokenizer.cache.claimName",
            "required"),
        new Case(
            "hub not ORG/NAME",
            i -> i.getSpec().getRouter().getTokenizer().setHub("../etc/passwd"),
            "spec.router.tokenizer.hub",
            "a hub id ORG/NAME"),
        new Case(
            "revision with a dot segment",
            i -> {
              i.getSpec().getRouter().getTokenizer().setHub("org/m");
              i.getSpec().getRouter().getTokenizer().setRevision("main/../x");
            },
            "spec.router.tokenizer.revision",
            "a branch, tag or commit"),
        new Case(
            "revision past its length",
            i -> {
              i.getSpec().getRouter().getTokenizer().setHub("org/m");
              i.getSpec().getRouter().getTokenizer().setRevision("a".repeat(129));
            },
            "spec.router.tokenizer.revision",
            "at most 128 characters"),
        new Case(
            "token secret without a name",
            i -> {
              i.getSpec().getRouter().getTokenizer().setHub("org/m");
              TokenizerDownload d = new TokenizerDownload();
              d.setTokenSecret(new SecretKeyRef());
              i.getSpec().getRouter().getTokenizer().setDownload(d);
            },
            "spec.router.tokenizer.download.tokenSecret.name",
            "required"),
        new Case(
            "token secret key with a slash",
            i -> {
              i.getSpec().getRouter().getTokenizer().setHub("org/m");
              TokenizerDownload d = new TokenizerDownload();
              SecretKeyRef ref = new SecretKeyRef();
              ref.setName("hf-token");
              ref.setKey("a/b");
              d.setTokenSecret(ref);
              i.getSpec().getRouter().getTokenizer().setDownload(d);
            },
            "spec.router.tokenizer.download.tokenSecret.key",
            "letters, digits"),
        new Case(
            "download endpoint not http",
            i -> {
              i.getSpec().getRouter().getTokenizer().setHub("org/m");
              TokenizerDownload d = new TokenizerDownload();
              d.setEndpoint("ftp://mirror");
              i.getSpec().getRouter().getTokenizer().setDownload(d);
            },
            "spec.router.tokenizer.download.endpoint",
            "an http(s) URL"),
        new Case(
            "hash seed out of range",
            i -> i.getSpec().setPythonHashSeed("4294967296"),
            "spec.pythonHashSeed",
            Rules.PYTHON_HASH_SEED_RANGE_MESSAGE),
        // Schema rules.
        new Case(
            "negative pool replicas",
            i -> i.getSpec().getPools().get(0).setReplicas(-1),
            "spec.pools[0].replicas",
            "must be >= 0"),
        new Case(
            "negative router replicas",
            i -> i.getSpec().getRouter().setReplicas(-2),
            "spec.router.replicas",
            "must be >= 0"),
        new Case(
            "negative gpu",
            i -> i.getSpec().getPools().get(0).getResources().setGpu(-1),
            "spec.pools[0].resources.gpu",
            "must be >= 0"),
        new Case("missing model", i -> i.getSpec().setModel(null), "spec.model", "required"),
        new Case("blank model", i -> i.getSpec().setModel("  "), "spec.model", "required"),
        new Case(
            "no pools", i -> i.getSpec().setPools(new ArrayList<>()), "spec.pools", "at least one"),
        new Case(
            "too many pools",
            i -> {
              i.getSpec().getPools().clear();
              for (int k = 0; k < 17; k++) {
                i.getSpec().getPools().add(Fixtures.pool("p" + k, PoolRole.MIXED, 1, 1));
              }
            },
            "spec.pools",
            "at most 16"),
        new Case(
            "pool name not a DNS label",
            i -> i.getSpec().getPools().get(0).setName("Prefill_1"),
            "spec.pools[0].name",
            "not a DNS label"),
        new Case(
            "pool name missing",
            i -> i.getSpec().getPools().get(0).setName(null),
            "spec.pools[0].name",
            "required"),
        new Case(
            "service name too long",
            i -> {
              i.getMetadata().setName("a".repeat(50));
              i.getSpec().getPools().get(0).setName("p".repeat(20));
            },
            "spec.pools[0].name",
            "would exceed 63 characters"),
        new Case(
            "resource name too long",
            i -> i.getMetadata().setName("a".repeat(60)),
            "metadata.name",
            "too long"),
        new Case(
            "resource name not DNS-1035",
            i -> i.getMetadata().setName("1demo"),
            "metadata.name",
            "DNS-1035"),
        new Case(
            "hash seed not a number",
            i -> i.getSpec().setPythonHashSeed("abc"),
            "spec.pythonHashSeed",
            "an integer or 'random'"),
        new Case(
            "negative overlap weight",
            i -> i.getSpec().getRouter().setOverlapWeight(-1.0),
            "spec.router.overlapWeight",
            ">= 0"),
        new Case(
            "infinite decode weight",
            i -> i.getSpec().getRouter().setDecodeOverlapWeight(Double.POSITIVE_INFINITY),
            "spec.router.decodeOverlapWeight",
            "finite"),
        new Case(
            "decode input demand on with least-loaded",
            i -> {
              i.getSpec().getRouter().setPolicy(RouterPolicy.LEAST_LOADED);
              i.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.ON);
            },
            "spec.router",
            Rules.DECODE_INPUT_DEMAND_KV_AWARE_MESSAGE),
        new Case(
            "decode input demand shadow with approx-prefix",
            i -> {
              i.getSpec().getRouter().setPolicy(RouterPolicy.APPROX_PREFIX);
              i.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.SHADOW);
            },
            "spec.router",
            "(decodeInputDemand shadow, policy approx-prefix)"),
        new Case(
            "decode request weight without decode input demand",
            i -> i.getSpec().getRouter().setDecodeRequestWeight(64.0),
            "spec.router",
            Rules.DECODE_REQUEST_WEIGHT_NEEDS_DEMAND_MESSAGE),
        new Case(
            "decode request weight with decode input demand off",
            i -> {
              i.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.OFF);
              i.getSpec().getRouter().setDecodeRequestWeight(0.5);
            },
            "spec.router",
            "(decodeRequestWeight 0.5, decodeInputDemand off)"),
        new Case(
            "negative decode request weight",
            i -> {
              i.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.ON);
              i.getSpec().getRouter().setDecodeRequestWeight(-0.5);
            },
            "spec.router.decodeRequestWeight",
            "[0, 1e9]"),
        new Case(
            "decode request weight past 1e9",
            i -> {
              i.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.ON);
              i.getSpec().getRouter().setDecodeRequestWeight(1e9 + 1);
            },
            "spec.router.decodeRequestWeight",
            "[0, 1e9]"),
        new Case(
            "NaN decode request weight",
            i -> {
              i.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.SHADOW);
              i.getSpec().getRouter().setDecodeRequestWeight(Double.NaN);
            },
            "spec.router.decodeRequestWeight",
            "finite"),
        new Case(
            "session header with a space",
            i -> affinity(i).setHeader("x session"),
            "spec.router.sessionAffinity.header",
            "an HTTP header name"),
        new Case(
            "session header of 129 characters",
            i -> affinity(i).setHeader("x".repeat(129)),
            "spec.router.sessionAffinity.header",
            "at most 128"),
        new Case(
            "zero max sessions",
            i -> affinity(i).setMaxSessions(0),
            "spec.router.sessionAffinity.maxSessions",
            "[1, 10000000], got 0"),
        new Case(
            "max sessions past 10000000",
            i -> affinity(i).setMaxSessions(10_000_001),
            "spec.router.sessionAffinity.maxSessions",
            "got 10000001"),
        new Case(
            "ttl under a second",
            i -> affinity(i).setTtlMs(999L),
            "spec.router.sessionAffinity.ttlMs",
            "[1000, 604800000], got 999"),
        new Case(
            "ttl past 7 days",
            i -> affinity(i).setTtlMs(604_800_001L),
            "spec.router.sessionAffinity.ttlMs",
            "got 604800001"),
        new Case(
            "zero max key bytes",
            i -> affinity(i).setMaxKeyBytes(0),
            "spec.router.sessionAffinity.maxKeyBytes",
            "[1, 4096], got 0"),
        new Case(
            "max key bytes past 4096",
            i -> affinity(i).setMaxKeyBytes(4097),
            "spec.router.sessionAffinity.maxKeyBytes",
            "got 4097"),
        new Case(
            "zero image affinity entries",
            i -> multimodal(i).setAffinityEntries(0),
            "spec.router.multimodal.affinityEntries",
            "[1, 1000000], got 0"),
        new Case(
            "image affinity entries past 1000000",
            i -> multimodal(i).setAffinityEntries(1_000_001),
            "spec.router.multimodal.affinityEntries",
            "got 1000001"),
        new Case(
            "nats url scheme",
            i -> i.getSpec().getNats().setUrl("http://nats:4222"),
            "spec.nats.url",
            "nats://"),
        new Case(
            "stream with a dot",
            i -> i.getSpec().getNats().setStream("A.B"),
            "spec.nats.stream",
            "letters"),
        new Case(
            "subject prefix wildcard",
            i -> i.getSpec().getNats().setSubjectPrefix("infera.>"),
            "spec.nats.subjectPrefix",
            "no wildcards"),
        new Case(
            "gpu type",
            i -> i.getSpec().getPools().get(0).getResources().setGpuType("gpu"),
            "spec.pools[0].resources.gpuType",
            "nvidia.com/gpu"),
        new Case(
            "negative memory",
            i -> i.getSpec().getPools().get(0).getResources().setMemory(new Quantity("-1Gi")),
            "spec.pools[0].resources.memory",
            "non-negative"),
        new Case(
            "zero nats storage",
            i -> {
              i.getSpec().getNats().setDeploy(new NatsDeploySpec());
              i.getSpec().getNats().getDeploy().setStorage(new Quantity("0"));
            },
            "spec.nats.deploy.storage",
            "positive"),
        new Case(
            "env without name",
            i -> i.getSpec().getPools().get(0).setEnv(List.of(new EnvVar(null, "x", null))),
            "spec.pools[0].env[0].name",
            "required"),
        new Case(
            "duplicate env",
            i ->
                i.getSpec()
                    .getPools()
                    .get(0)
                    .setEnv(List.of(new EnvVar("A", "1", null), new EnvVar("A", "2", null))),
            "spec.pools[0].env[1].name",
            "duplicate"),
        new Case("blank image", i -> i.getSpec().setImage(""), "spec.image", "must not be empty"),
        new Case(
            "namespace not a label",
            i -> i.getMetadata().setNamespace("Team_A"),
            "metadata.namespace",
            "DNS-1123"));
  }

  private static SessionAffinitySpec affinity(InferaDeployment i) {
    if (i.getSpec().getRouter().getSessionAffinity() == null) {
      i.getSpec().getRouter().setSessionAffinity(new SessionAffinitySpec());
    }
    return i.getSpec().getRouter().getSessionAffinity();
  }

  private static MultimodalSpec multimodal(InferaDeployment i) {
    if (i.getSpec().getRouter().getMultimodal() == null) {
      i.getSpec().getRouter().setMultimodal(new MultimodalSpec());
    }
    return i.getSpec().getRouter().getMultimodal();
  }

  @Test
  void theRouterFeaturesAtTheirLimitsAreValid() {
    for (RouterPolicy p : RouterPolicy.values()) {
      // off (and a zero weight) is accepted under every policy, as the router accepts it.
      InferaDeployment idep = valid();
      idep.getSpec().getRouter().setPolicy(p);
      idep.getSpec().getRouter().setDecodeInputDemand(DecodeInputDemand.OFF);
      idep.getSpec().getRouter().setDecodeRequestWeight(0.0);
      idep.getSpec().getRouter().setPrefillGuardRelease(PrefillGuardRelease.COMPLETION);
      assertThat(SpecValidator.validate(idep)).as(p.value()).isEmpty();
    }
    for (DecodeInputDemand d : List.of(DecodeInputDemand.SHADOW, DecodeInputDemand.ON)) {
      for (double w : new double[] {0.0, 1e-9, 64.0, 1e9}) {
        InferaDeployment idep = valid();
        idep.getSpec().getRouter().setDecodeInputDemand(d);
        idep.getSpec().getRouter().setDecodeRequestWeight(w);
        assertThat(SpecValidator.validate(idep)).as(d.value() + " " + w).isEmpty();
      }
    }
    for (long[] bounds :
        new long[][] {{1, 1000, 1}, {10_000_000, 604_800_000L, 4096}, {100_000, 1_800_000L, 256}}) {
      InferaDeployment idep = valid();
      SessionAffinitySpec s = affinity(idep);
      s.setMode(SessionAffinityMode.BOTH);
      s.setMaxSessions((int) bounds[0]);
      s.setTtlMs(bounds[1]);
      s.setMaxKeyBytes((int) bounds[2]);
      assertThat(SpecValidator.validate(idep)).isEmpty();
    }
    for (String header : List.of("", "x-session-id", "X-Conversation_ID", "a".repeat(128))) {
      InferaDeployment idep = valid();
      affinity(idep).setHeader(header);
      assertThat(SpecValidator.validate(idep)).as("'" + header + "'").isEmpty();
    }
    for (int entries : new int[] {1, 1024, 1_000_000}) {
      InferaDeployment idep = valid();
      multimodal(idep).setAffinityEntries(entries);
      assertThat(SpecValidator.validate(idep)).isEmpty();
    }
  }

  private static TokenizerCache cache(String claim, String subPath) {
    TokenizerCache c = new TokenizerCache();
    c.setClaimName(claim);
    c.setSubPath(subPath);
    return c;
  }

  @Test
  void aRevisionAtItsLengthAndTheHubSourcesAloneAreValid() {
    InferaDeployment idep = valid();
    TokenizerSpec t = idep.getSpec().getRouter().getTokenizer();
    t.setHub("Qwen/Qwen3-8B");
    t.setRevision("a".repeat(128));
    assertThat(SpecValidator.validate(idep)).isEmpty();
    t.setCache(cache("hf-cache", ".cache/huggingface"));
    assertThat(SpecValidator.validate(idep)).isEmpty();
    t.setCache(null);
    TokenizerDownload d = new TokenizerDownload();
    SecretKeyRef ref = new SecretKeyRef();
    ref.setName("hf-token");
    d.setTokenSecret(ref);
    d.setEndpoint("https://hf-mirror.example/base");
    t.setDownload(d);
    assertThat(SpecValidator.validate(idep)).isEmpty();
  }

  private static InferaDeployment valid() {
    return idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
  }

  @Test
  void theFixtureAndTheSamplesAreValid() {
    assertThat(SpecValidator.validate(valid())).isEmpty();
    for (String s :
        List.of("vllm-mixed.yaml", "vllm-pd.yaml", "sglang-pd.yaml", "atom-pd.yaml", "sim.yaml")) {
      assertThat(SpecValidator.validate(Fixtures.parseSample(s))).as(s).isEmpty();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void refusesNamingTheField(Case c) {
    InferaDeployment idep = valid();
    c.breakIt().accept(idep);
    List<Violation> v = SpecValidator.validate(idep);
    assertThat(v).as(c.name()).isNotEmpty();
    assertThat(v)
        .as(c.name())
        .anySatisfy(
            x -> {
              assertThat(x.field()).isEqualTo(c.field());
              assertThat(x.message()).contains(c.message());
            });
    // The builder refuses it too, with reason InvalidSpec and no child.
    assertThat(Fixtures.invalid(idep).message()).contains(c.field());
  }

  @Test
  void everyCelRuleHasAJavaTwinExercisedHere() throws IllegalAccessException {
    List<String> messages = new ArrayList<>();
    for (Field f : Rules.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getName().endsWith("_MESSAGE")) {
        messages.add((String) f.get(null));
      }
    }
    assertThat(messages).hasSizeGreaterThanOrEqualTo(7);
    List<String> covered = cases().map(Case::message).toList();
    assertThat(covered).containsAll(messages);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 8, 32})
  void everyDataParallelSizeUpToTheMaximumIsAcceptedWithEnoughGpus(int dp) {
    InferaDeployment idep = valid();
    idep.getSpec().getPools().get(0).setDataParallelSize(dp);
    idep.getSpec().getPools().get(0).getResources().setGpu(dp);
    assertThat(SpecValidator.validate(idep)).isEmpty();
    // A worker without GPUs (a CPU build of the engine, the simulator) is not counted.
    idep.getSpec().getPools().get(0).getResources().setGpu(0);
    assertThat(SpecValidator.validate(idep)).isEmpty();
  }

  @Test
  void theDocumentedKvTransferRolesAndTheRadixCacheSwitchAreAccepted() {
    InferaDeployment vllm = valid();
    vllm.getSpec().getPools().get(0).setKvTransferRole(KvTransferRole.KV_PRODUCER);
    vllm.getSpec().getPools().get(1).setKvTransferRole(KvTransferRole.KV_BOTH);
    assertThat(SpecValidator.validate(vllm)).isEmpty();
    InferaDeployment sglang = idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE);
    sglang.getSpec().getPools().get(1).setDecodeRadixCache(false);
    assertThat(SpecValidator.validate(sglang)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024})
  void everyPowerOfTwoPageSizeIsAccepted(int pageSize) {
    InferaDeployment idep = valid();
    idep.getSpec().setPageSize(pageSize);
    assertThat(SpecValidator.validate(idep)).isEmpty();
  }

  @Test
  void nullsMeanDefaults() {
    InferaDeployment idep = valid();
    idep.getSpec().setEngine(null);
    idep.getSpec().setPageSize(null);
    idep.getSpec().setRouter(null);
    idep.getSpec().setNats(null);
    idep.getSpec().getPools().get(0).setResources(null);
    idep.getSpec().getPools().get(0).setArgs(null);
    assertThat(SpecValidator.validate(idep)).isEmpty();
    assertThat(Fixtures.fleet(idep).inputs().pageSize()).isEqualTo(16);
  }

  @Test
  void aMissingSpecOrMetadataIsRefusedNotAnException() {
    InferaDeployment noSpec = valid();
    noSpec.setSpec(null);
    assertThat(SpecValidator.validate(noSpec)).extracting(Violation::field).contains("spec");
    InferaDeployment noName = valid();
    noName.getMetadata().setName(null);
    assertThat(SpecValidator.validate(noName))
        .extracting(Violation::field)
        .contains("metadata.name");
  }
}
