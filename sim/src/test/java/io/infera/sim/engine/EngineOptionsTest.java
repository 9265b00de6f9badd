package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class EngineOptionsTest {

  @Test
  void defaultsAreTheDocumentedOnes() {
    EngineOptions o = EngineOptions.defaults();
    assertThat(o.host()).isEqualTo("127.0.0.1");
    assertThat(o.port()).isZero();
    assertThat(o.zmqPort()).isZero();
    assertThat(o.replayPort()).isZero();
    assertThat(o.flavor()).isEqualTo(Flavor.VLLM);
    assertThat(o.blockSize()).isEqualTo(16);
    assertThat(o.numBlocks()).isEqualTo(8192);
    assertThat(o.model()).isEqualTo("Qwen/Qwen3-0.6B");
    assertThat(o.tokenizer()).isEqualTo("builtin:qwen3");
    assertThat(o.speedup()).isEqualTo(1.0);
    assertThat(o.dpSize()).isEqualTo(1);
    assertThat(o.hashSeed()).isZero();
    assertThat(o.maxNumSeqs()).isEqualTo(256);
    assertThat(o.maxNumBatchedTokens()).isEqualTo(8192);
    assertThat(o.topic()).isEqualTo("kv-events");
    assertThat(o.publishesEvents()).isTrue();
    assertThat(o.hasReplay()).isTrue();
  }

  @Test
  void builderChangesOnlyWhatItIsTold() {
    EngineOptions o = EngineOptions.defaults().toBuilder().flavor(Flavor.SGLANG).dpSize(4).build();
    assertThat(o.flavor()).isEqualTo(Flavor.SGLANG);
    assertThat(o.dpSize()).isEqualTo(4);
    assertThat(o.toBuilder().build()).isEqualTo(o);
    EngineOptions none = o.toBuilder().zmqPort(-1).build();
    assertThat(none.publishesEvents()).isFalse();
    assertThat(none.hasReplay()).isFalse();
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        bad(b -> b.host(" "), "host"),
        bad(b -> b.port(-1), "port"),
        bad(b -> b.port(65536), "port"),
        bad(b -> b.zmqPort(-2), "zmqPort"),
        bad(b -> b.replayPort(70000), "replayPort"),
        bad(b -> b.flavor(null), "flavor"),
        bad(b -> b.blockSize(0), "blockSize"),
        bad(b -> b.numBlocks(0), "numBlocks"),
        bad(b -> b.model(""), "model"),
        bad(b -> b.tokenizer(null), "tokenizer"),
        bad(b -> b.speedup(0), "speedup"),
        bad(b -> b.speedup(Double.NaN), "speedup"),
        bad(b -> b.dpSize(0), "dpSize"),
        bad(b -> b.dpSize(65), "dpSize"),
        bad(b -> b.maxNumSeqs(0), "maxNumSeqs"),
        bad(b -> b.maxNumBatchedTokens(0), "maxNumBatchedTokens"),
        bad(b -> b.topic(null), "topic"),
        bad(b -> b.zmqPort(65535).dpSize(2), "zmqPort + dpSize"));
  }

  private static Arguments bad(UnaryOperator<EngineOptions.Builder> change, String field) {
    return Arguments.of(change, field);
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void invalidValuesAreRejectedNamingTheField(
      UnaryOperator<EngineOptions.Builder> change, String field) {
    assertThatThrownBy(() -> change.apply(EngineOptions.defaults().toBuilder()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(field);
  }

  @ParameterizedTest
  @CsvSource({
    "vllm,VLLM",
    "VLLM,VLLM",
    "vllm-map,VLLM_MAP",
    "vllm_map,VLLM_MAP",
    "vllm-array,VLLM_ARRAY",
    "sglang,SGLANG"
  })
  void flavorsParseTheirCliNames(String name, Flavor expected) {
    assertThat(Flavor.parse(name)).isEqualTo(expected);
    assertThat(Flavor.parse(expected.cliName())).isEqualTo(expected);
  }

  @Test
  void unknownFlavorNamesTheAlternatives() {
    assertThatThrownBy(() -> Flavor.parse("trtllm"))
        .hasMessageContaining("trtllm")
        .hasMessageContaining("vllm, vllm-array, vllm-map, sglang");
    assertThat(Flavor.SGLANG.engine()).isEqualTo("sglang");
    assertThat(Flavor.VLLM_MAP.engine()).isEqualTo("vllm");
  }
}
