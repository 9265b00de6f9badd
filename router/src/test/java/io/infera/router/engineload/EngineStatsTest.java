package io.infera.router.engineload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EngineStatsTest {

  private static EngineStats read(String text) {
    return EngineStats.of(
        PromText.parse(text, EngineStats.NAMES::contains, PromText.Limits.DEFAULTS));
  }

  @Test
  void vllmPerRankFromTheEngineLabel() {
    EngineStats s =
        read(
            """
            vllm:num_requests_running{model_name="m",engine="0"} 3.0
            vllm:num_requests_running{model_name="m",engine="1"} 1.0
            vllm:num_requests_waiting{model_name="m",engine="0"} 2.0
            vllm:num_requests_waiting{model_name="m",engine="1"} 0.0
            vllm:kv_cache_usage_perc{model_name="m",engine="0"} 0.5
            vllm:kv_cache_usage_perc{model_name="m",engine="1"} 0.25
            vllm:prefix_cache_queries_total{model_name="m",engine="0"} 100.0
            vllm:prefix_cache_hits_total{model_name="m",engine="0"} 40.0
            vllm:prefix_cache_queries_total{model_name="m",engine="1"} 50.0
            vllm:prefix_cache_hits_total{model_name="m",engine="1"} 10.0
            """);
    assertThat(s.family()).isEqualTo("vllm");
    assertThat(s.ranks()).extracting(EngineStats.Rank::rank).containsExactly(0, 1);
    assertThat(s.ranks().get(0).running()).isEqualTo(3.0);
    assertThat(s.requests()).isEqualTo(6.0);
    assertThat(s.kvUsage()).isEqualTo(0.375);
    assertThat(s.prefixQueries()).isEqualTo(150.0);
    assertThat(s.prefixHits()).isEqualTo(50.0);
  }

  @Test
  void olderVllmNamesFillOnlyWhatTheCurrentOnesLeaveOut() {
    EngineStats s =
        read(
            """
            vllm:num_requests_running{engine="0"} 1
            vllm:gpu_cache_usage_perc{engine="0"} 0.9
            vllm:kv_cache_usage_perc{engine="0"} 0.4
            vllm:gpu_prefix_cache_queries_total{engine="0"} 10
            vllm:gpu_prefix_cache_hits_total{engine="0"} 5
            """);
    assertThat(s.kvUsage()).isEqualTo(0.4);
    assertThat(s.prefixQueries()).isEqualTo(10.0);
    assertThat(s.prefixHits()).isEqualTo(5.0);
    assertThat(s.ranks().get(0).waiting()).isNaN();
    assertThat(s.requests()).isEqualTo(1.0);
  }

  @Test
  void sglangPerDpRankWithTensorRanksCombined() {
    EngineStats s =
        read(
            """
            sglang:num_running_reqs{model_name="m",engine_type="unified",tp_rank="0",pp_rank="0",dp_rank="0"} 4
            sglang:num_running_reqs{model_name="m",engine_type="unified",tp_rank="1",pp_rank="0",dp_rank="0"} 4
            sglang:num_queue_reqs{model_name="m",engine_type="unified",tp_rank="0",pp_rank="0",dp_rank="0"} 1
            sglang:num_running_reqs{model_name="m",engine_type="unified",tp_rank="0",pp_rank="0",dp_rank="1"} 2
            sglang:token_usage{model_name="m",tp_rank="0",dp_rank="0"} 0.95
            sglang:prompt_tokens_total{model_name="m"} 1000
            sglang:cached_tokens_total{model_name="m"} 600
            """);
    assertThat(s.family()).isEqualTo("sglang");
    assertThat(s.requests()).isEqualTo(7.0);
    assertThat(s.kvUsage()).isEqualTo(0.95);
    assertThat(s.prefixQueries()).isEqualTo(1000.0);
    assertThat(s.prefixHits()).isEqualTo(600.0);
  }

  @Test
  void impossibleValuesAreUnknown() {
    EngineStats s =
        read(
            """
            vllm:num_requests_running{engine="0"} NaN
            vllm:num_requests_waiting{engine="0"} -3
            vllm:kv_cache_usage_perc{engine="0"} 1.5
            vllm:num_requests_running{engine="1"} +Inf
            vllm:num_requests_waiting{engine="1"} 2
            vllm:num_requests_running{engine="x"} 100
            vllm:num_requests_running{engine="99999"} 100
            """);
    // Rank 0 reported nothing usable; rank 1 only its queue; bad rank labels are skipped.
    assertThat(s.ranks()).extracting(EngineStats.Rank::rank).containsExactly(1);
    assertThat(s.ranks().get(0).running()).isNaN();
    assertThat(s.kvUsage()).isNaN();
    assertThat(s.requests()).isEqualTo(2.0);
  }

  @Test
  void noLoadSeriesIsNoSnapshot() {
    assertThat(read("vllm:kv_cache_usage_perc 0.5\nprocess_cpu_seconds_total 3\n")).isNull();
    assertThat(read("")).isNull();
    assertThat(read("<html>502 Bad Gateway</html>")).isNull();
  }

  @Test
  void vllmNamesDecideWhenBothFamiliesAppear() {
    EngineStats s = read("vllm:num_requests_running 1\nsglang:num_running_reqs 9\n");
    assertThat(s.family()).isEqualTo("vllm");
    assertThat(s.requests()).isEqualTo(1.0);
  }
}
