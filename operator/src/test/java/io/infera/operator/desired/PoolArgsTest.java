package io.infera.operator.desired;

import static io.infera.operator.testing.Fixtures.idep;
import static io.infera.operator.testing.Fixtures.invalid;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.infera.operator.api.v1alpha1.Conditions;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.KvTransferRole;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.PoolSpec;
import io.infera.operator.testing.Fixtures;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A pool's args and env may add to what the operator derives, never contradict it. */
class PoolArgsTest {

  /** Builds {@code engine} with a pool of {@code role} (plus its PD partner) given {@code args}. */
  private static InferaDeployment withArgs(Engine engine, PoolRole role, String args) {
    InferaDeployment idep =
        role == PoolRole.MIXED
            ? idep(engine, PoolRole.MIXED)
            : idep(engine, PoolRole.PREFILL, PoolRole.DECODE);
    poolOf(idep, role).setArgs(Arrays.asList(args.split("\\|")));
    return idep;
  }

  private static PoolSpec poolOf(InferaDeployment idep, PoolRole role) {
    return idep.getSpec().getPools().stream()
        .filter(p -> p.getRole() == role)
        .findFirst()
        .orElseThrow();
  }

  @ParameterizedTest(name = "{0} {1}: {2}")
  @CsvSource(
      delimiter = ';',
      value = {
        "VLLM;MIXED;--block-size|32;--block-size",
        "VLLM;MIXED;--block-size=32;--block-size",
        "VLLM;MIXED;--block_size|32;--block_size",
        "VLLM;MIXED;--block-size 32;--block-size",
        "VLLM;MIXED;--block-size;--block-size",
        "VLLM;MIXED;--page-size|8;--page-size",
        "VLLM;MIXED;--port|9000;--port",
        "VLLM;MIXED;--port=9000;--port",
        "VLLM;MIXED;--kv-events-config|{\"publisher\":\"null\"};--kv-events-config",
        "VLLM;MIXED;--no-enable-prefix-caching;--no-enable-prefix-caching",
        "VLLM;MIXED;--enable-prefix-caching=false;--enable-prefix-caching",
        "VLLM;MIXED;--disaggregation-mode|prefill;--disaggregation-mode",
        "VLLM;MIXED;--model|other/model;--model",
        "VLLM;PREFILL;--disaggregation-mode|decode;--disaggregation-mode",
        "SGLANG;MIXED;--page-size|32;--page-size",
        "SGLANG;MIXED;--block-size|32;--block-size",
        "SGLANG;MIXED;--kv-events-config|{};--kv-events-config",
        "SGLANG;MIXED;--port|30000;--port",
        "SGLANG;MIXED;--host|127.0.0.1;--host",
        "SGLANG;MIXED;--model-path|other/model;--model-path",
        "SGLANG;MIXED;--disable-radix-cache;--disable-radix-cache",
        "SGLANG;MIXED;--disaggregation-mode|prefill;--disaggregation-mode",
        "SGLANG;PREFILL;--disaggregation-mode|decode;--disaggregation-mode",
        "SGLANG;DECODE;--disaggregation-mode=prefill;--disaggregation-mode",
        "SIM;MIXED;--block-size|64;--block-size",
        "SIM;MIXED;--zmq-port|6000;--zmq-port",
        "SIM;MIXED;--replay-port|-1;--replay-port",
        "SIM;MIXED;--kv-events-config|{};--kv-events-config",
        "SIM;MIXED;--port|0;--port",
        // Data parallelism belongs to spec.pools[].dataParallelSize (the relay reads every rank).
        "VLLM;MIXED;--data-parallel-size|2;--data-parallel-size",
        "VLLM;MIXED;-dp|2;-dp",
        "VLLM;MIXED;-dp=2;-dp",
        "VLLM;MIXED;--data-parallel-size-local|2;--data-parallel-size-local",
        "VLLM;MIXED;--data-parallel-rank|1;--data-parallel-rank",
        "VLLM;MIXED;-dpn|1;-dpn",
        "VLLM;MIXED;--data-parallel-start-rank|1;--data-parallel-start-rank",
        "VLLM;MIXED;-dpr|1;-dpr",
        "SGLANG;MIXED;--dp-size|2;--dp-size",
        "SGLANG;MIXED;--dp|2;--dp",
        "SGLANG;MIXED;--data-parallel-size=4;--data-parallel-size",
        "SGLANG;MIXED;--attn-dp-size|2;--attn-dp-size",
        "SGLANG;MIXED;--attention-data-parallel-size|2;--attention-data-parallel-size",
        "SIM;MIXED;--dp-size|2;--dp-size",
        // ATOM: its HTTP port is --server-port; one data-parallel rank (one KV-event endpoint).
        "ATOM;MIXED;--server-port|9000;--server-port",
        "ATOM;MIXED;--block-size|32;--block-size",
        "ATOM;MIXED;--model|other/model;--model",
        "ATOM;MIXED;--host|127.0.0.1;--host",
        "ATOM;MIXED;--no-enable_prefix_caching;--no-enable_prefix_caching",
        "ATOM;MIXED;--enable_prefix_caching=false;--enable-prefix-caching",
        "ATOM;MIXED;--data-parallel-size|2;--data-parallel-size",
        "ATOM;MIXED;-dp|2;-dp",
        "ATOM;MIXED;--enable-dp-attention;--enable-dp-attention",
        "ATOM;MIXED;--kv-events-config|{};--kv-events-config",
        "ATOM;PREFILL;--kv-transfer-config|{\"kv_connector\":\"mooncake\",\"kv_role\":\"kv_consumer\"};--kv-transfer-config",
        // Cached-token reporting.
        "VLLM;MIXED;--no-enable-prompt-tokens-details;--no-enable-prompt-tokens-details",
        "VLLM;MIXED;--enable-prompt-tokens-details=false;--enable-prompt-tokens-details",
        "SGLANG;MIXED;--enable-cache-report=false;--enable-cache-report",
        // The NixlConnector role comes from the pool's role (or spec.pools[].kvTransferRole).
        "VLLM;PREFILL;--kv-transfer-config|{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"};--kv-transfer-config",
        "VLLM;DECODE;--kv-transfer-config={\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"};--kv-transfer-config",
      })
  void contradictingArgIsRefusedNamingThePoolAndTheFlag(
      Engine engine, PoolRole role, String args, String flag) {
    InferaDeployment idep = withArgs(engine, role, args);
    var refused = invalid(idep);
    assertThat(refused.reason()).isEqualTo(Conditions.REASON_INVALID_SPEC);
    assertThat(refused.message())
        .contains("pool '" + role.value() + "'")
        .contains(flag)
        .contains("spec.pools[")
        .doesNotContain("\n");
    assertThat(refused.violations()).hasSize(1);
  }

  @ParameterizedTest(name = "{0} {1}: {2}")
  @CsvSource(
      delimiter = ';',
      value = {
        "VLLM;MIXED;--block-size|16",
        "VLLM;MIXED;--port=8000",
        "VLLM;MIXED;--enable-prefix-caching",
        "VLLM;MIXED;--max-model-len|8192|--tensor-parallel-size|2",
        "VLLM;MIXED;--kv-events-config|{\"topic\": \"kv-events\", \"enable_kv_cache_events\": true,"
            + " \"publisher\": \"zmq\", \"endpoint\": \"tcp://127.0.0.1:5557\", \"replay_endpoint\":"
            + " \"tcp://127.0.0.1:5657\"}",
        "VLLM;MIXED;--data-parallel-size|1|-tp|2",
        "VLLM;PREFILL;--kv-transfer-config|{\"kv_role\": \"kv_producer\", \"kv_connector\":"
            + " \"NixlConnector\"}",
        "VLLM;MIXED;--enable-prompt-tokens-details",
        "SGLANG;PREFILL;--disaggregation-mode|prefill|--tp|2",
        "SGLANG;DECODE;--disaggregation-decode-enable-radix-cache|--enable-cache-report",
        "SGLANG;MIXED;--dp-size|1|--enable-dp-attention",
        "SGLANG;MIXED;--page-size|16|--mem-fraction-static|0.8",
        "SIM;MIXED;--num-blocks|4096|--speedup|10",
        // ATOM's --port is its engine-internal port, not the HTTP one: left to the pool.
        "ATOM;MIXED;--port|8106|-tp|8|--kv_cache_dtype|fp8",
        "ATOM;MIXED;--server-port|8000|--block-size|16|--enable_prefix_caching",
        "ATOM;DECODE;--kv-transfer-config|{\"kv_role\": \"kv_consumer\", \"kv_connector\":"
            + " \"mooncake\"}",
      })
  void argsThatAgreeOrAddAreAccepted(Engine engine, PoolRole role, String args) {
    Fixtures.fleet(withArgs(engine, role, args));
  }

  @Test
  void dataParallelArgsAgreeingWithDataParallelSizeAreAccepted() {
    InferaDeployment vllm =
        withArgs(Engine.VLLM, PoolRole.MIXED, "-dp|4|--data-parallel-size-local=4");
    vllm.getSpec().getPools().get(0).setDataParallelSize(4);
    vllm.getSpec().getPools().get(0).getResources().setGpu(4);
    Fixtures.fleet(vllm);
    InferaDeployment sglang = withArgs(Engine.SGLANG, PoolRole.MIXED, "--dp|4");
    sglang.getSpec().getPools().get(0).setDataParallelSize(4);
    sglang.getSpec().getPools().get(0).getResources().setGpu(4);
    Fixtures.fleet(sglang);
    sglang.getSpec().getPools().get(0).setArgs(List.of("--dp-size", "2"));
    assertThat(invalid(sglang).message())
        .contains("sets --dp-size 2")
        .contains("--dp-size 4 (from spec.pools[].dataParallelSize)");
  }

  @Test
  void aShortFlagIsReportedAsTyped() {
    var refused = invalid(withArgs(Engine.VLLM, PoolRole.MIXED, "-dp|2"));
    assertThat(refused.message())
        .isEqualTo(
            "spec.pools[0].args: pool 'mixed': spec.pools[0].args[0] sets -dp 2, which"
                + " contradicts the operator-derived --data-parallel-size 1 (from"
                + " spec.pools[].dataParallelSize); remove it");
  }

  @Test
  void theDecodeRadixCacheFlagIsRefusedWhenTheSpecTurnsItOff() {
    InferaDeployment idep =
        withArgs(Engine.SGLANG, PoolRole.DECODE, "--disaggregation-decode-enable-radix-cache");
    poolOf(idep, PoolRole.DECODE).setDecodeRadixCache(false);
    assertThat(invalid(idep).message())
        .contains("pool 'decode'")
        .contains("sets --disaggregation-decode-enable-radix-cache")
        .contains("decodeRadixCache is false");
  }

  @Test
  void aKvTransferConfigWithTheOverriddenRoleIsAccepted() {
    InferaDeployment idep =
        withArgs(
            Engine.VLLM,
            PoolRole.DECODE,
            "--kv-transfer-config|{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}");
    poolOf(idep, PoolRole.DECODE).setKvTransferRole(KvTransferRole.KV_BOTH);
    Fixtures.fleet(idep);
  }

  @Test
  void everyContradictionIsReportedAtOnce() {
    InferaDeployment idep = withArgs(Engine.VLLM, PoolRole.MIXED, "--block-size|32|--port|1");
    var refused = invalid(idep);
    assertThat(refused.violations()).hasSize(2);
    assertThat(refused.message()).contains("--block-size 32").contains("--port 1");
  }

  @Test
  void messageSaysWhereTheDerivedValueComesFrom() {
    var refused = invalid(withArgs(Engine.SGLANG, PoolRole.MIXED, "--page-size|32"));
    assertThat(refused.message())
        .isEqualTo(
            "spec.pools[0].args: pool 'mixed': spec.pools[0].args[0] sets --page-size 32, which"
                + " contradicts the operator-derived --page-size 16 (from spec.pageSize); remove"
                + " it");
  }

  @Test
  void aDifferentPythonHashSeedInAPoolIsRefused() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    idep.getSpec().getPools().get(0).setEnv(List.of(new EnvVar("PYTHONHASHSEED", "42", null)));
    var refused = invalid(idep);
    assertThat(refused.message())
        .contains("spec.pools[0].env[0]")
        .contains("pool 'mixed'")
        .contains("PYTHONHASHSEED=42");

    InferaDeployment fromSecret = idep(Engine.VLLM, PoolRole.MIXED);
    fromSecret
        .getSpec()
        .getPools()
        .get(0)
        .setEnv(
            List.of(
                new EnvVarBuilder()
                    .withName("PYTHONHASHSEED")
                    .withNewValueFrom()
                    .withNewSecretKeyRef("seed", "s", false)
                    .endValueFrom()
                    .build()));
    assertThat(invalid(fromSecret).message()).contains("PYTHONHASHSEED from a reference");
  }

  @Test
  void thePoolIsNamedByItsIndexInTheSpecNotItsSortedPosition() {
    InferaDeployment idep = idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE);
    // decode sorts before prefill, but is spec.pools[1].
    idep.getSpec().getPools().get(1).setArgs(List.of("--page-size", "8"));
    assertThat(invalid(idep).message()).startsWith("spec.pools[1].args: pool 'decode'");
  }

  @Test
  void aPrefillDecodeVllmPoolMayNotReplaceTheKvTransferConfigButAMixedOneMay() {
    InferaDeployment pd = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    pd.getSpec()
        .getPools()
        .get(0)
        .setArgs(List.of("--kv-transfer-config", "{\"kv_connector\":\"LMCacheConnectorV1\"}"));
    assertThat(invalid(pd).message())
        .contains("--kv-transfer-config")
        .contains("the router's prefill/decode hand-over");
    InferaDeployment mixed = withArgs(Engine.VLLM, PoolRole.MIXED, "--kv-transfer-config|{}");
    assertThat(DesiredFleet.build(mixed)).isInstanceOf(BuildResult.Built.class);
  }
}
