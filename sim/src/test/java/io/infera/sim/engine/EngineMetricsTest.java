package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.sim.sched.EngineCore;
import java.util.List;
import org.junit.jupiter.api.Test;

class EngineMetricsTest {

  private static final List<EngineMetrics.Rank> RANKS =
      List.of(
          new EngineMetrics.Rank(
              0, new EngineCore.Stats(2, 1, 0.25, 10, 100, 40, 0, 7, 90, 30, 3), 5),
          new EngineMetrics.Rank(1, new EngineCore.Stats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0));

  @Test
  void vllmNamesOneSamplePerRank() {
    String text = EngineMetrics.render("org/m", Flavor.VLLM, RANKS);
    assertThat(text)
        .contains("# TYPE vllm:num_requests_running gauge\n")
        .contains("vllm:num_requests_running{model_name=\"org/m\",engine=\"0\"} 2.0\n")
        .contains("vllm:num_requests_running{model_name=\"org/m\",engine=\"1\"} 0.0\n")
        .contains("vllm:num_requests_waiting{model_name=\"org/m\",engine=\"0\"} 1.0\n")
        .contains("vllm:gpu_cache_usage_perc{model_name=\"org/m\",engine=\"0\"} 0.25\n")
        .contains("# TYPE vllm:prefix_cache_queries_total counter\n")
        .contains("vllm:prefix_cache_queries_total{model_name=\"org/m\",engine=\"0\"} 100.0\n")
        .contains("vllm:prefix_cache_hits_total{model_name=\"org/m\",engine=\"0\"} 40.0\n")
        .contains("vllm:prompt_tokens_total{model_name=\"org/m\",engine=\"0\"} 90.0\n")
        .contains("vllm:generation_tokens_total{model_name=\"org/m\",engine=\"0\"} 30.0\n")
        .contains(
            "vllm:request_success_total{model_name=\"org/m\",finished_reason=\"length\","
                + "engine=\"0\"} 3.0\n")
        .doesNotContain("sglang:");
    for (String line : text.split("\n")) {
      assertThat(line).matches("# (HELP|TYPE) .*|[a-z_:]+\\{[^}]*\\} [0-9.E-]+");
    }
  }

  @Test
  void sglangServesSglangsNamesAndLabels() {
    String text = EngineMetrics.render("m", Flavor.SGLANG, RANKS);
    assertThat(text)
        .contains(
            "sglang:num_running_reqs{model_name=\"m\",engine_type=\"unified\",tp_rank=\"0\","
                + "pp_rank=\"0\",dp_rank=\"0\"} 2.0\n")
        .contains(
            "sglang:num_queue_reqs{model_name=\"m\",engine_type=\"unified\",tp_rank=\"0\","
                + "pp_rank=\"0\",dp_rank=\"1\"} 0.0\n")
        .contains("sglang:token_usage{")
        .contains(
            "sglang:cache_hit_rate{model_name=\"m\",engine_type=\"unified\",tp_rank=\"0\","
                + "pp_rank=\"0\",dp_rank=\"0\"} 0.4\n")
        .contains("sglang:prompt_tokens_total{model_name=\"m\"} 100.0\n")
        .contains("sglang:cached_tokens_total{model_name=\"m\"} 40.0\n")
        .doesNotContain("vllm:");
    // One rank: no dp_rank label, as SGLang without data-parallel attention.
    assertThat(EngineMetrics.render("m", Flavor.SGLANG, RANKS.subList(0, 1)))
        .contains(
            "sglang:num_running_reqs{model_name=\"m\",engine_type=\"unified\",tp_rank=\"0\","
                + "pp_rank=\"0\"} 2.0\n");
  }

  @Test
  void bothFlavorsReadBackThroughTheRoutersParser() {
    for (Flavor f : List.of(Flavor.VLLM, Flavor.SGLANG)) {
      io.infera.router.engineload.EngineStats s =
          io.infera.router.engineload.EngineStats.of(
              io.infera.router.engineload.PromText.parse(
                  EngineMetrics.render("m", f, RANKS),
                  io.infera.router.engineload.EngineStats.NAMES::contains,
                  io.infera.router.engineload.PromText.Limits.DEFAULTS));
      assertThat(s.family()).as("%s", f).isEqualTo(f.engine());
      assertThat(s.requests()).as("%s", f).isEqualTo(3.0);
      assertThat(s.kvUsage()).as("%s", f).isEqualTo(0.125);
      assertThat(s.prefixQueries()).as("%s", f).isEqualTo(100.0);
      assertThat(s.prefixHits()).as("%s", f).isEqualTo(40.0);
    }
  }

  @Test
  void labelValuesAreEscaped() {
    assertThat(EngineMetrics.render("a\"b\\c", Flavor.VLLM, RANKS))
        .contains("model_name=\"a\\\"b\\\\c\"");
  }
}
