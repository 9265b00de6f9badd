package io.infera.router.engineload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One engine's reported state, per data-parallel rank, read from its {@code /metrics}. vLLM labels
 * a rank {@code engine}, SGLang {@code dp_rank}; a series without one is rank 0. A value that is
 * negative, NaN or infinite (or a KV usage outside 0..1) is unknown (NaN). Series of one rank that
 * differ in other labels (SGLang's {@code tp_rank}) describe the same scheduler: the largest wins.
 *
 * @param ranks ranks in ascending order
 * @param family {@code vllm} or {@code sglang}: whose names the snapshot was read from
 */
public record EngineStats(List<Rank> ranks, String family) {

  /**
   * One rank. Every field is NaN when the engine did not report it.
   *
   * @param running requests in the running batch
   * @param waiting requests queued
   * @param kvUsage KV-cache usage 0..1
   * @param prefixQueries prefix-cache queried tokens (a counter)
   * @param prefixHits prefix-cache hit tokens (a counter)
   */
  public record Rank(
      int rank,
      double running,
      double waiting,
      double kvUsage,
      double prefixQueries,
      double prefixHits) {}

  // vLLM (vllm/v1/metrics/loggers.py): gauges, and counters exposed with a _total suffix.
  static final String VLLM_RUNNING = "vllm:num_requests_running";
  static final String VLLM_WAITING = "vllm:num_requests_waiting";
  static final String VLLM_KV = "vllm:kv_cache_usage_perc";
  static final String VLLM_KV_OLD = "vllm:gpu_cache_usage_perc";
  static final String VLLM_QUERIES = "vllm:prefix_cache_queries_total";
  static final String VLLM_HITS = "vllm:prefix_cache_hits_total";
  static final String VLLM_QUERIES_OLD = "vllm:gpu_prefix_cache_queries_total";
  static final String VLLM_HITS_OLD = "vllm:gpu_prefix_cache_hits_total";
  // SGLang (python/sglang/srt/metrics/collector.py).
  static final String SGL_RUNNING = "sglang:num_running_reqs";
  static final String SGL_WAITING = "sglang:num_queue_reqs";
  static final String SGL_KV = "sglang:token_usage";
  static final String SGL_PROMPT = "sglang:prompt_tokens_total";
  static final String SGL_CACHED = "sglang:cached_tokens_total";

  /** The metric names read; every other series is skipped unparsed. */
  public static final Set<String> NAMES =
      Set.of(
          VLLM_RUNNING,
          VLLM_WAITING,
          VLLM_KV,
          VLLM_KV_OLD,
          VLLM_QUERIES,
          VLLM_HITS,
          VLLM_QUERIES_OLD,
          VLLM_HITS_OLD,
          SGL_RUNNING,
          SGL_WAITING,
          SGL_KV,
          SGL_PROMPT,
          SGL_CACHED);

  /** Ranks above this are ignored (a label value no engine would send). */
  static final int MAX_RANK = 1023;

  public EngineStats {
    ranks = List.copyOf(ranks);
  }

  /**
   * The snapshot in {@code parsed}, or null when it holds none of the load series (running or
   * waiting) of either engine.
   */
  public static EngineStats of(PromText.Result parsed) {
    boolean vllm = false;
    boolean sglang = false;
    for (PromText.Sample s : parsed.samples()) {
      vllm |= s.name().equals(VLLM_RUNNING) || s.name().equals(VLLM_WAITING);
      sglang |= s.name().equals(SGL_RUNNING) || s.name().equals(SGL_WAITING);
    }
    if (!vllm && !sglang) {
      return null;
    }
    // An engine serves one family; if both appear, vLLM's names decide.
    String family = vllm ? "vllm" : "sglang";
    Map<Integer, double[]> byRank = new TreeMap<>();
    for (PromText.Sample s : parsed.samples()) {
      int field = field(s.name(), vllm);
      if (field < 0) {
        continue;
      }
      int rank = rank(s, vllm ? "engine" : "dp_rank");
      if (rank < 0) {
        continue;
      }
      double v = s.value();
      if (!Double.isFinite(v) || v < 0 || (field == KV && v > 1)) {
        continue;
      }
      double[] r = byRank.computeIfAbsent(rank, k -> nanRow());
      // Slots 0..4 hold the current names, 5..9 older aliases (used only where 0..4 are empty).
      int slot = isAlias(s.name()) ? field + FIELDS : field;
      r[slot] = Double.isNaN(r[slot]) ? v : Math.max(r[slot], v);
    }
    List<Rank> ranks = new ArrayList<>(byRank.size());
    for (Map.Entry<Integer, double[]> e : byRank.entrySet()) {
      double[] r = e.getValue();
      for (int f = 0; f < FIELDS; f++) {
        if (Double.isNaN(r[f])) {
          r[f] = r[f + FIELDS];
        }
      }
      ranks.add(new Rank(e.getKey(), r[RUNNING], r[WAITING], r[KV], r[QUERIES], r[HITS]));
    }
    return new EngineStats(ranks, family);
  }

  /** Running + waiting over every rank; NaN when no rank reported either. */
  public double requests() {
    double sum = 0;
    boolean any = false;
    for (Rank r : ranks) {
      if (!Double.isNaN(r.running())) {
        sum += r.running();
        any = true;
      }
      if (!Double.isNaN(r.waiting())) {
        sum += r.waiting();
        any = true;
      }
    }
    return any ? sum : Double.NaN;
  }

  /** Mean KV usage over the ranks that reported it; NaN when none did. */
  public double kvUsage() {
    double sum = 0;
    int n = 0;
    for (Rank r : ranks) {
      if (!Double.isNaN(r.kvUsage())) {
        sum += r.kvUsage();
        n++;
      }
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  /** Prefix-cache queried tokens summed over ranks; NaN when none reported. */
  public double prefixQueries() {
    return sum(true);
  }

  /** Prefix-cache hit tokens summed over ranks; NaN when none reported. */
  public double prefixHits() {
    return sum(false);
  }

  private double sum(boolean queries) {
    double s = 0;
    boolean any = false;
    for (Rank r : ranks) {
      double v = queries ? r.prefixQueries() : r.prefixHits();
      if (!Double.isNaN(v)) {
        s += v;
        any = true;
      }
    }
    return any ? s : Double.NaN;
  }

  private static final int RUNNING = 0;
  private static final int WAITING = 1;
  private static final int KV = 2;
  private static final int QUERIES = 3;
  private static final int HITS = 4;
  private static final int FIELDS = 5;

  private static double[] nanRow() {
    double[] r = new double[2 * FIELDS];
    java.util.Arrays.fill(r, Double.NaN);
    return r;
  }

  private static boolean isAlias(String name) {
    return name.equals(VLLM_KV_OLD) || name.equals(VLLM_QUERIES_OLD) || name.equals(VLLM_HITS_OLD);
  }

  private static int field(String name, boolean vllm) {
    if (vllm) {
      return switch (name) {
        case VLLM_RUNNING -> RUNNING;
        case VLLM_WAITING -> WAITING;
        case VLLM_KV, VLLM_KV_OLD -> KV;
        case VLLM_QUERIES, VLLM_QUERIES_OLD -> QUERIES;
        case VLLM_HITS, VLLM_HITS_OLD -> HITS;
        default -> -1;
      };
    }
    return switch (name) {
      case SGL_RUNNING -> RUNNING;
      case SGL_WAITING -> WAITING;
      case SGL_KV -> KV;
      // SGLang counts every prompt token and the cached ones: queries and hits in token units.
      case SGL_PROMPT -> QUERIES;
      case SGL_CACHED -> HITS;
      default -> -1;
    };
  }

  /** The rank in {@code label}: 0 when absent, -1 when not a small non-negative integer. */
  private static int rank(PromText.Sample s, String label) {
    String v = s.label(label);
    if (v == null || v.isEmpty()) {
      return 0;
    }
    if (v.length() > 4) {
      return -1;
    }
    int r = 0;
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      r = r * 10 + (c - '0');
    }
    return r > MAX_RANK ? -1 : r;
  }
}
