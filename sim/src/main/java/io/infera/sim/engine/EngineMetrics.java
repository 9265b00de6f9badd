package io.infera.sim.engine;

import io.infera.sim.sched.EngineCore;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Renders a simulated engine's {@code /metrics} in Prometheus text format: vLLM's metric names, one
 * sample per data-parallel rank labelled {@code model_name} and {@code engine} (the rank), as vLLM
 * labels them; for the {@code sglang} flavor SGLang's names and labels instead (scheduler gauges
 * per rank with {@code engine_type}, {@code tp_rank}, {@code pp_rank} and, with more than one rank,
 * {@code dp_rank}; token counters once, labelled {@code model_name}). Pure and thread-safe.
 */
final class EngineMetrics {

  /**
   * One rank's counters.
   *
   * @param kvBatches KV-event batches published by the rank
   */
  record Rank(int rank, EngineCore.Stats stats, long kvBatches) {}

  private EngineMetrics() {}

  static String render(String model, Flavor flavor, List<Rank> ranks) {
    if (flavor == Flavor.SGLANG) {
      return sglang(model, ranks);
    }
    StringBuilder sb = new StringBuilder(4096);
    String label = "model_name=\"" + escape(model) + "\"";
    gauge(
        sb,
        "vllm:num_requests_running",
        "Number of requests in model execution batches.",
        label,
        ranks,
        s -> s.running());
    gauge(
        sb,
        "vllm:num_requests_waiting",
        "Number of requests waiting to be processed.",
        label,
        ranks,
        s -> s.waiting());
    gauge(
        sb,
        "vllm:gpu_cache_usage_perc",
        "GPU KV-cache usage. 1 means 100 percent usage.",
        label,
        ranks,
        s -> s.kvUsage());
    gauge(
        sb,
        "vllm:kv_cache_usage_perc",
        "KV-cache usage. 1 means 100 percent usage.",
        label,
        ranks,
        s -> s.kvUsage());
    counter(
        sb,
        "vllm:prefix_cache_queries_total",
        "Prefix cache queries, in terms of number of queried tokens.",
        label,
        ranks,
        s -> s.prefixQueryTokens());
    counter(
        sb,
        "vllm:prefix_cache_hits_total",
        "Prefix cache hits, in terms of number of cached tokens.",
        label,
        ranks,
        s -> s.prefixHitTokens());
    counter(
        sb,
        "vllm:prompt_tokens_total",
        "Number of prefill tokens processed.",
        label,
        ranks,
        s -> s.promptTokens());
    counter(
        sb,
        "vllm:generation_tokens_total",
        "Number of generation tokens processed.",
        label,
        ranks,
        s -> s.generationTokens());
    counter(
        sb,
        "vllm:num_preemptions_total",
        "Cumulative number of preemptions from the engine.",
        label,
        ranks,
        s -> s.preemptions());
    counter(
        sb,
        "vllm:request_success_total",
        "Count of successfully processed requests.",
        label + ",finished_reason=\"length\"",
        ranks,
        s -> s.finishedRequests());
    sb.append("# HELP sim_steps_total Engine steps completed.\n");
    sb.append("# TYPE sim_steps_total counter\n");
    for (Rank r : ranks) {
      sample(sb, "sim_steps_total", label, r.rank(), r.stats().steps());
    }
    sb.append("# HELP sim_kv_cached_blocks Blocks in the prefix cache.\n");
    sb.append("# TYPE sim_kv_cached_blocks gauge\n");
    for (Rank r : ranks) {
      sample(sb, "sim_kv_cached_blocks", label, r.rank(), r.stats().cachedBlocks());
    }
    sb.append("# HELP sim_kv_event_batches_total KV-event batches published.\n");
    sb.append("# TYPE sim_kv_event_batches_total counter\n");
    for (Rank r : ranks) {
      sample(sb, "sim_kv_event_batches_total", label, r.rank(), r.kvBatches());
    }
    return sb.toString();
  }

  /** SGLang's names (python/sglang/srt/metrics/collector.py) and labels. */
  private static String sglang(String model, List<Rank> ranks) {
    StringBuilder sb = new StringBuilder(4096);
    String m = "model_name=\"" + escape(model) + "\"";
    boolean dp = ranks.size() > 1;
    sglangGauge(
        sb,
        "sglang:num_running_reqs",
        "The number of running requests.",
        m,
        dp,
        ranks,
        s -> s.running());
    sglangGauge(
        sb,
        "sglang:num_queue_reqs",
        "The number of requests in the waiting queue.",
        m,
        dp,
        ranks,
        s -> s.waiting());
    sglangGauge(sb, "sglang:token_usage", "The token usage.", m, dp, ranks, s -> s.kvUsage());
    sglangGauge(
        sb,
        "sglang:cache_hit_rate",
        "The prefix cache hit rate.",
        m,
        dp,
        ranks,
        s -> s.prefixQueryTokens() == 0 ? 0 : (double) s.prefixHitTokens() / s.prefixQueryTokens());
    sglangCounter(
        sb,
        "sglang:prompt_tokens_total",
        "Number of prefill tokens processed.",
        m,
        ranks,
        s -> s.prefixQueryTokens());
    sglangCounter(
        sb,
        "sglang:cached_tokens_total",
        "Number of cached prompt tokens.",
        m,
        ranks,
        s -> s.prefixHitTokens());
    sglangCounter(
        sb,
        "sglang:generation_tokens_total",
        "Number of generation tokens processed.",
        m,
        ranks,
        s -> s.generationTokens());
    sglangCounter(
        sb,
        "sglang:num_requests_total",
        "Number of requests processed.",
        m,
        ranks,
        s -> s.finishedRequests());
    sb.append("# HELP sim_steps_total Engine steps completed.\n");
    sb.append("# TYPE sim_steps_total counter\n");
    for (Rank r : ranks) {
      sample(sb, "sim_steps_total", m, r.rank(), r.stats().steps());
    }
    return sb.toString();
  }

  private static void sglangGauge(
      StringBuilder sb,
      String name,
      String help,
      String model,
      boolean dp,
      List<Rank> ranks,
      ToDoubleFunction<EngineCore.Stats> value) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(" gauge\n");
    for (Rank r : ranks) {
      sb.append(name)
          .append('{')
          .append(model)
          .append(",engine_type=\"unified\",tp_rank=\"0\",pp_rank=\"0\"");
      if (dp) {
        sb.append(",dp_rank=\"").append(r.rank()).append('"');
      }
      sb.append("} ").append(format(value.applyAsDouble(r.stats()))).append('\n');
    }
  }

  /** A tokenizer-side counter: one series, summed over the ranks. */
  private static void sglangCounter(
      StringBuilder sb,
      String name,
      String help,
      String model,
      List<Rank> ranks,
      ToDoubleFunction<EngineCore.Stats> value) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(" counter\n");
    double sum = 0;
    for (Rank r : ranks) {
      sum += value.applyAsDouble(r.stats());
    }
    sb.append(name).append('{').append(model).append("} ").append(format(sum)).append('\n');
  }

  private static void gauge(
      StringBuilder sb,
      String name,
      String help,
      String labels,
      List<Rank> ranks,
      ToDoubleFunction<EngineCore.Stats> value) {
    family(sb, name, help, "gauge", labels, ranks, value);
  }

  private static void counter(
      StringBuilder sb,
      String name,
      String help,
      String labels,
      List<Rank> ranks,
      ToDoubleFunction<EngineCore.Stats> value) {
    family(sb, name, help, "counter", labels, ranks, value);
  }

  private static void family(
      StringBuilder sb,
      String name,
      String help,
      String type,
      String labels,
      List<Rank> ranks,
      ToDoubleFunction<EngineCore.Stats> value) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    for (Rank r : ranks) {
      sample(sb, name, labels, r.rank(), value.applyAsDouble(r.stats()));
    }
  }

  private static void sample(StringBuilder sb, String name, String labels, int rank, double v) {
    sb.append(name)
        .append('{')
        .append(labels)
        .append(",engine=\"")
        .append(rank)
        .append("\"} ")
        .append(format(v))
        .append('\n');
  }

  private static String format(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v) + ".0";
    }
    return Double.toString(v);
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
