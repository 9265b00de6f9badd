package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigLoaderTest {

  @TempDir Path tmp;

  private static final String MINIMAL =
      "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
          + "discovery: {workers: [{id: w0, url: 'http://127.0.0.1:9001'}]}\n";

  static Stream<Path> goldenFiles() throws Exception {
    Path dir = Path.of("..", "config", "router");
    return Files.list(dir).filter(p -> p.toString().endsWith(".yaml")).sorted();
  }

  @ParameterizedTest
  @MethodSource("goldenFiles")
  void everyGoldenRouterConfigParses(Path file) throws Exception {
    RouterConfig c = ConfigLoader.load(file, Map.of(), Map.of());
    assertThat(c.model()).isNotBlank();
    assertThat(c.pageSize()).isEqualTo(16);
  }

  @Test
  void goldenKubernetesConfigCarriesTheOperatorsValues() throws Exception {
    RouterConfig c =
        ConfigLoader.load(
            Path.of("..", "config", "router", "kubernetes-nats.yaml"), Map.of(), Map.of());
    assertThat(c.discovery().backend()).isEqualTo(RouterConfig.Backend.KUBERNETES);
    assertThat(c.discovery().pools())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.service()).isEqualTo("demo-mixed");
              assertThat(p.role()).isEqualTo(Role.MIXED);
              assertThat(p.zmqPort()).isEqualTo(5557);
            });
    assertThat(c.policy().weightFor(Role.PREFILL)).isEqualTo(20.0);
    assertThat(c.events().nats().url()).isEqualTo("nats://demo-nats:4222");
  }

  @Test
  void goldenPdFeaturesConfigCarriesTheOperatorsRoutingFeatures() throws Exception {
    // What the operator renders from spec.router.decodeInputDemand, decodeRequestWeight,
    // prefillGuardRelease, sessionAffinity and multimodal (its RouterConfigContractTest).
    RouterConfig c =
        ConfigLoader.load(
            Path.of("..", "config", "router", "kubernetes-nats-pd-features.yaml"),
            Map.of(),
            Map.of());
    assertThat(c.decodeDemand())
        .isEqualTo(
            new DecodeDemandConfig(
                DecodeDemandConfig.Mode.ON, 64.0, DecodeDemandConfig.GuardRelease.COMPLETION));
    assertThat(c.sessionAffinity())
        .isEqualTo(
            new SessionAffinityConfig(
                SessionAffinityConfig.Mode.BOTH, "x-conversation-id", 50_000, 600_000L, 128));
    assertThat(c.multimodal().affinityEntries()).isEqualTo(4096);
    assertThat(c.discovery().pools()).extracting(p -> p.role()).contains(Role.PREFILL, Role.DECODE);
  }

  @Test
  void defaultsFillEverythingUnset() throws Exception {
    RouterConfig c = ConfigLoader.parse(MINIMAL);
    assertThat(c.pageSize()).isEqualTo(16);
    assertThat(c.policy().name()).isEqualTo(PolicyName.KV_AWARE);
    assertThat(c.policy().overlapWeight()).isEqualTo(1.0);
    assertThat(c.events().transport()).isEqualTo(RouterConfig.Transport.ZMQ);
    assertThat(c.limits().maxBodyBytes()).isEqualTo(64L << 20);
    assertThat(c.limits().retries()).isEqualTo(1);
    assertThat(c.listen().port()).isEqualTo(8000);
    assertThat(c.discovery().workers().get(0).role()).isEqualTo(Role.MIXED);
  }

  @Test
  void flagBeatsEnvBeatsFileBeatsDefault() throws Exception {
    Path file = tmp.resolve("c.yaml");
    Files.writeString(
        file, MINIMAL + "policy: {name: round-robin, overlapWeight: 3}\npageSize: 32\n");
    RouterConfig fileOnly = ConfigLoader.load(file, Map.of(), Map.of());
    assertThat(fileOnly.policy().name()).isEqualTo(PolicyName.ROUND_ROBIN);
    assertThat(fileOnly.pageSize()).isEqualTo(32);
    Map<String, String> env =
        Map.of("INFERA_ROUTER_POLICY", "least-loaded", "INFERA_BLOCK_SIZE", "64");
    RouterConfig withEnv = ConfigLoader.load(file, env, Map.of());
    assertThat(withEnv.policy().name()).isEqualTo(PolicyName.LEAST_LOADED);
    assertThat(withEnv.pageSize()).isEqualTo(64);
    assertThat(withEnv.policy().overlapWeight()).isEqualTo(3.0);
    RouterConfig withFlags =
        ConfigLoader.load(
            file,
            env,
            Map.of("--router-policy", "kv-aware", "--kv-overlap-weight", "2.5", "--port", "9999"));
    assertThat(withFlags.policy().name()).isEqualTo(PolicyName.KV_AWARE);
    assertThat(withFlags.policy().overlapWeight()).isEqualTo(2.5);
    assertThat(withFlags.pageSize()).isEqualTo(64);
    assertThat(withFlags.listen().port()).isEqualTo(9999);
    assertThat(ConfigLoader.envName("--kv-prefill-overlap-weight"))
        .isEqualTo("INFERA_KV_PREFILL_OVERLAP_WEIGHT");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '#',
      value = {
        "pageSize: 0#pageSize: 0 is outside [1, 4096]",
        "pageSize: big#pageSize: expected an integer, got 'big'",
        "policy: {name: random}#policy.name: unknown policy 'random'",
        "policy: {overlapWeight: -1}#policy.overlapWeight: must be a finite number >= 0",
        "limits: {retries: 99}#limits.retries: 99 is outside [0, 10]",
        "events: {transport: kafka}#events.transport: unknown value 'kafka'",
        "polcy: {name: kv-aware}#polcy: unknown key",
        "listen: {port: 70000}#listen.port: 70000 is outside [0, 65535]",
        "apiVersion: v2#apiVersion: expected infera.io/v1alpha1",
        "index: {maxBlocks: 0}#index.maxBlocks: 0 is outside [1, 17179869184]",
        "index: {maxBlocks: 17179869185}#index.maxBlocks: 17179869185 is outside",
        "index: {maxBlocksPerSource: 1073741825}#index.maxBlocksPerSource: 1073741825 is outside",
        "index: {maxEntries: 5}#index.maxEntries: unknown key",
        "events: {resetsPerMinute: 0}#events.resetsPerMinute: 0.0 is outside (0, 1e6]",
        "events: {resetsPerMinute: 1000001}#events.resetsPerMinute: 1000001.0 is outside",
        "events: {resetsBurst: 0}#events.resetsBurst: 0 is outside [1, 1000]",
        "events: {resetsBurst: 1001}#events.resetsBurst: 1001 is outside [1, 1000]",
        "policy: {load: {prefillBlocksPerSecond: 0}}#policy.load.prefillBlocksPerSecond: 0.0 is outside",
        "policy: {load: {prefillBlocksPerSecond: 10000001}}#policy.load.prefillBlocksPerSecond:"
            + " 1.0000001E7 is outside",
        "policy: {load: {prefillBlocksPerSecond: -5}}#policy.load.prefillBlocksPerSecond: must be",
        "policy: {load: {prefillBlocksPerSecond: fast}}#policy.load.prefillBlocksPerSecond:"
            + " expected a number",
        "policy: {load: {learnRate: maybe}}#policy.load.learnRate:",
        "policy: {load: {decay: 0.97}}#policy.load.decay: unknown key",
        "policy: {load: 5}#policy.load: expected a mapping"
      })
  void invalidValuesNameTheirKey(String line, String message) {
    assertThatThrownBy(() -> ConfigLoader.parse(MINIMAL + line + "\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message);
  }

  @Test
  void theLoadModelHasDefaultsThatTheFileOverrides() throws Exception {
    assertThat(ConfigLoader.parse(MINIMAL).policy().load()).isEqualTo(LoadModel.DEFAULTS);
    assertThat(LoadModel.DEFAULTS)
        .isEqualTo(new LoadModel(LoadModel.DEFAULT_PREFILL_BLOCKS_PER_SECOND, true));
    LoadModel set =
        ConfigLoader.parse(
                MINIMAL + "policy: {load: {prefillBlocksPerSecond: 250.5, learnRate: false}}\n")
            .policy()
            .load();
    assertThat(set).isEqualTo(new LoadModel(250.5, false));
    // At and just inside the limits.
    assertThat(
            ConfigLoader.parse(MINIMAL + "policy: {load: {prefillBlocksPerSecond: 10000000}}\n")
                .policy()
                .load()
                .prefillBlocksPerSecond())
        .isEqualTo(LoadModel.MAX_PREFILL_BLOCKS_PER_SECOND);
    assertThat(
            ConfigLoader.parse(MINIMAL + "policy: {load: {prefillBlocksPerSecond: 0.001}}\n")
                .policy()
                .load()
                .prefillBlocksPerSecond())
        .isEqualTo(0.001);
  }

  @Test
  void engineNamesAreTheOnesTheRouterKnowsAtomIncluded() throws Exception {
    String engine =
        MINIMAL.replace("url: 'http://127.0.0.1:9001'", "url: 'http://127.0.0.1:9001', engine: %s");
    for (String known : List.of("vllm", "sglang", "atom", "sim")) {
      assertThat(ConfigLoader.parse(engine.formatted(known)).discovery().workers().get(0).engine())
          .isEqualTo(known);
    }
    assertThatThrownBy(() -> ConfigLoader.parse(engine.formatted("trtllm")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("discovery.workers[0].engine: expected vllm, sglang, atom or sim")
        .hasMessageContaining("'trtllm'");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                        + "discovery: {backend: kubernetes, pools: [{name: p, engine: ATOM}]}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("discovery.pools[0].engine: expected");
    assertThat(
            ConfigLoader.parse(
                    "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                        + "discovery: {backend: kubernetes, pools: [{name: p, engine: atom}]}\n")
                .discovery()
                .pools()
                .get(0)
                .engine())
        .isEqualTo("atom");
  }

  @Test
  void aStaticWorkersPoolDefaultsToStaticAndMustBeASubjectToken() throws Exception {
    assertThat(ConfigLoader.parse(MINIMAL).discovery().workers().get(0).pool()).isEqualTo("static");
    String pooled =
        MINIMAL.replace("url: 'http://127.0.0.1:9001'", "url: 'http://127.0.0.1:9001', pool: %s");
    assertThat(
            ConfigLoader.parse(pooled.formatted("decode-a_1")).discovery().workers().get(0).pool())
        .isEqualTo("decode-a_1");
    assertThat(
            ConfigLoader.parse(pooled.formatted("p".repeat(63)))
                .discovery()
                .workers()
                .get(0)
                .pool())
        .hasSize(63);
    for (String bad : List.of("'a.b'", "'a b'", "'*'", "'>'", "''", "p".repeat(64))) {
      assertThatThrownBy(() -> ConfigLoader.parse(pooled.formatted(bad)))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("discovery.workers[0].pool: ")
          .hasMessageContaining("NATS subject token");
    }
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                        + "discovery: {backend: kubernetes, pools: [{name: 'a.b'}]}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("discovery.pools[0].name: 'a.b' must be 1-63");
  }

  @Test
  void structuralErrorsAreClear() {
    assertThatThrownBy(() -> ConfigLoader.parse("tokenizer: {path: x}\n"))
        .hasMessageContaining("model: required");
    assertThatThrownBy(() -> ConfigLoader.parse("model: m\ndiscovery: {workers: []}\n"))
        .hasMessageContaining("tokenizer.path: required");
    assertThatThrownBy(() -> ConfigLoader.parse("model: m\ntokenizer: {path: x}\n"))
        .hasMessageContaining("discovery.workers: the static backend needs at least one worker");
    assertThatThrownBy(() -> ConfigLoader.parse(MINIMAL.replace("http://", "ftp://")))
        .hasMessageContaining("discovery.workers[0].url: expected http(s)://host:port");
    assertThatThrownBy(() -> ConfigLoader.parse("model: m\nmodel: n\n"))
        .hasMessageContaining("invalid YAML");
    assertThatThrownBy(() -> ConfigLoader.parse("- just\n- a list\n"))
        .hasMessageContaining("must be a YAML mapping");
    assertThatThrownBy(() -> ConfigLoader.load(Path.of("/nope.yaml"), Map.of(), Map.of()))
        .hasMessageContaining("does not exist");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "model: m\ntokenizer: {mode: engine}\ndiscovery: {backend: kubernetes}\n"))
        .hasMessageContaining("discovery.pools");
  }

  @Test
  void randomGarbageIsAlwaysAConfigExceptionNeverACrash() {
    Random r = new Random(9);
    String base = MINIMAL + "limits: {retries: 2}\npolicy: {name: kv-aware}\n";
    for (int i = 0; i < 5000; i++) {
      StringBuilder sb = new StringBuilder(base);
      for (int e = 0; e < 1 + r.nextInt(4); e++) {
        int at = r.nextInt(sb.length());
        String junk = "{}[]:,'\"-#&*!|>\n \t";
        sb.setCharAt(at, junk.charAt(r.nextInt(junk.length())));
      }
      try {
        ConfigLoader.parse(sb.toString());
      } catch (ConfigException expected) {
        assertThat(expected.getMessage()).isNotBlank();
      }
    }
    assertThat(List.of(base)).isNotEmpty();
  }

  @Test
  void indexLimitsDefaultAndTakeTheirBoundsExactly() throws Exception {
    RouterConfig d = ConfigLoader.parse(MINIMAL);
    assertThat(d.index().limits()).isEqualTo(io.infera.router.kv.IndexLimits.defaults());
    RouterConfig c =
        ConfigLoader.parse(
            MINIMAL
                + "index: {maxBlocksPerSource: 1073741824, maxBlocks: 17179869184}\n"
                + "events: {resetsPerMinute: 1000000, resetsBurst: 1000}\n");
    assertThat(c.index()).isEqualTo(new RouterConfig.Index(1L << 30, 1L << 34, 1_000_000, 1000));
    RouterConfig low =
        ConfigLoader.parse(
            MINIMAL
                + "index: {maxBlocksPerSource: 1, maxBlocks: 1}\n"
                + "events: {resetsPerMinute: 0.01, resetsBurst: 1}\n");
    assertThat(low.index()).isEqualTo(new RouterConfig.Index(1, 1, 0.01, 1));
  }
}
