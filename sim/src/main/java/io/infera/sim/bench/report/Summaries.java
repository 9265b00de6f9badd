package io.infera.sim.bench.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntToDoubleFunction;

/**
 * Turns request results into {@link ArmSummary}s. Seeds are pooled: every percentile is taken over
 * the union of all seeds' requests, hit ratios sum tokens over all seeds, and throughput divides
 * all seeds' output tokens by the total run time (seeds × {@code durationMs}).
 */
public final class Summaries {

  /** The arm that knows every engine's true cache; {@link #withOracle} normalises by it. */
  public static final String ORACLE = "oracle";

  /** The hit-maximizing reference arm; {@link #withReferences} compares against it. */
  public static final String HIT_MAX = "hit-max";

  /** Names the sweep arms ({@code kv-aware@W}, kv-aware pinned to weight W): references. */
  public static final String SWEEP_PREFIX = "kv-aware@";

  /** The arm whose regret the report headlines. */
  public static final String KV_AWARE = "kv-aware";

  private Summaries() {}

  /**
   * Summarises one arm; workers are those the results name.
   *
   * @param results this arm's results over all its seeds (each must carry {@code policy})
   * @param durationMs the run time of ONE seed's run (wall or virtual), &gt; 0
   */
  public static ArmSummary summarize(
      String policy, List<RequestResult> results, double durationMs) {
    return summarize(policy, results, durationMs, List.of());
  }

  /**
   * As {@link #summarize(String, List, double)}, counting also every worker of {@code fleet}: one
   * that served nothing makes {@code maxMinShare} +∞, the signature of a policy that starves
   * workers.
   */
  public static ArmSummary summarize(
      String policy, List<RequestResult> results, double durationMs, Collection<String> fleet) {
    checkDuration(durationMs);
    return pool(policy, results, seed -> durationMs, fleet);
  }

  /**
   * As {@link #summarize(String, List, double, Collection)} when each seed's run lasted
   * differently: throughput is all output tokens over the sum of the durations of the seeds
   * present.
   *
   * @param durationMsBySeed run time of each seed's run, ms; must cover every seed in {@code
   *     results}
   */
  public static ArmSummary summarize(
      String policy,
      List<RequestResult> results,
      Map<Integer, Double> durationMsBySeed,
      Collection<String> fleet) {
    return pool(
        policy,
        results,
        seed -> {
          Double d = durationMsBySeed.get(seed);
          if (d == null) {
            throw new IllegalArgumentException("no duration given for seed " + seed);
          }
          checkDuration(d);
          return d;
        },
        fleet);
  }

  private static ArmSummary pool(
      String policy,
      List<RequestResult> results,
      IntToDoubleFunction durationMsOfSeed,
      Collection<String> fleet) {
    Set<Integer> seeds = new HashSet<>();
    Map<String, Long> perWorker = new TreeMap<>(NaturalOrder.INSTANCE);
    for (String w : fleet) {
      perWorker.put(w, 0L);
    }
    int errors = 0;
    int rejections = 0;
    long prompt = 0;
    long cached = 0;
    long output = 0;
    double[] ttft = new double[results.size()];
    int ttftCount = 0;
    Map<Integer, List<Double>> ttftBySeed = new TreeMap<>();
    int itlCount = 0;
    for (RequestResult r : results) {
      if (!r.policy().equals(policy)) {
        throw new IllegalArgumentException(
            "result of policy '" + r.policy() + "' passed to the summary of '" + policy + "'");
      }
      itlCount += r.error() ? 0 : r.itlMs().size();
    }
    double[] itl = new double[itlCount];
    itlCount = 0;
    for (RequestResult r : results) {
      seeds.add(r.seed());
      if (r.routed()) {
        perWorker.merge(r.worker(), 1L, Long::sum);
      }
      if (r.error()) {
        errors++;
        if (r.rejected()) {
          rejections++;
        }
        continue;
      }
      ttft[ttftCount++] = r.ttftMs();
      ttftBySeed.computeIfAbsent(r.seed(), k -> new ArrayList<>()).add(r.ttftMs());
      for (double gap : r.itlMs()) {
        itl[itlCount++] = gap;
      }
      prompt += r.promptTokens();
      cached += r.cachedTokens();
      output += r.outputTokens();
    }
    double[] ttftSorted = Arrays.copyOf(ttft, ttftCount);
    Arrays.sort(ttftSorted);
    Arrays.sort(itl);
    double runMs = 0;
    for (int seed : seeds) {
      runMs += durationMsOfSeed.applyAsDouble(seed);
    }
    return new ArmSummary(
        policy,
        seeds.size(),
        results.size(),
        errors,
        rejections,
        percentile(ttftSorted, 50),
        percentile(ttftSorted, 90),
        percentile(ttftSorted, 99),
        percentile(itl, 50),
        percentile(itl, 99),
        seeds.isEmpty() ? 0 : output / (runMs / 1000.0),
        prompt == 0 ? Double.NaN : (double) cached / prompt,
        null,
        maxMinShare(perWorker.values()),
        perWorker,
        mean(ttftSorted),
        seedMean(ttftBySeed, true),
        seedMean(ttftBySeed, false),
        null,
        MultimodalStats.NONE);
  }

  private static double mean(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }

  /** Each seed's p50 (or mean) TTFT, averaged over the seeds with a successful request. */
  private static double seedMean(Map<Integer, List<Double>> bySeed, boolean p50) {
    if (bySeed.isEmpty()) {
      return Double.NaN;
    }
    double sum = 0;
    for (List<Double> v : bySeed.values()) {
      double[] sorted = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      sum += p50 ? percentile(sorted, 50) : mean(sorted);
    }
    return sum / bySeed.size();
  }

  /**
   * Summarises every policy found in {@code all} (in order of first appearance) and applies {@link
   * #withOracle} and {@link #withReferences}.
   */
  public static List<ArmSummary> summarizeAll(
      List<RequestResult> all, double durationMs, Collection<String> fleet) {
    Map<String, List<RequestResult>> byPolicy = new LinkedHashMap<>();
    for (RequestResult r : all) {
      byPolicy.computeIfAbsent(r.policy(), k -> new ArrayList<>()).add(r);
    }
    List<ArmSummary> arms = new ArrayList<>(byPolicy.size());
    for (Map.Entry<String, List<RequestResult>> e : byPolicy.entrySet()) {
      arms.add(summarize(e.getKey(), e.getValue(), durationMs, fleet));
    }
    return withReferences(withOracle(arms));
  }

  /**
   * Fills {@code hitRatioVsOracle = hitRatio / oracle.hitRatio} on every arm when an arm named
   * {@value #ORACLE} exists with a positive hit ratio (the oracle itself gets 1.0); otherwise every
   * arm gets null. Returns new summaries in the same order.
   */
  public static List<ArmSummary> withOracle(List<ArmSummary> arms) {
    Double oracleHit = null;
    for (ArmSummary a : arms) {
      if (a.policy().equals(ORACLE) && a.hitRatio() > 0 && Double.isFinite(a.hitRatio())) {
        oracleHit = a.hitRatio();
      }
    }
    List<ArmSummary> out = new ArrayList<>(arms.size());
    for (ArmSummary a : arms) {
      out.add(a.withHitRatioVsOracle(oracleHit == null ? null : a.hitRatio() / oracleHit));
    }
    return List.copyOf(out);
  }

  /**
   * Fills {@link ArmSummary#regret} on every arm against the run's references: the best static
   * overlap weight in hindsight (of the sweep arms {@value #SWEEP_PREFIX}W, the one with the lowest
   * seed-mean of mean TTFT; ties to the earlier arm) and {@value #HIT_MAX}. Per metric (seed-mean
   * p50 TTFT, seed-mean of mean TTFT) the reference is whichever of the two is lower on it. Without
   * any reference arm every regret is null; a reference at 0 ms leaves that regret NaN. Returns new
   * summaries in the same order.
   */
  public static List<ArmSummary> withReferences(List<ArmSummary> arms) {
    ArmSummary bestStatic = null;
    ArmSummary hitMax = null;
    for (ArmSummary a : arms) {
      if (a.policy().startsWith(SWEEP_PREFIX)
          && !Double.isNaN(a.ttftMeanSeedMeanMs())
          && (bestStatic == null || a.ttftMeanSeedMeanMs() < bestStatic.ttftMeanSeedMeanMs())) {
        bestStatic = a;
      }
      if (a.policy().equals(HIT_MAX) && !Double.isNaN(a.ttftMeanSeedMeanMs())) {
        hitMax = a;
      }
    }
    List<ArmSummary> out = new ArrayList<>(arms.size());
    if (bestStatic == null && hitMax == null) {
      for (ArmSummary a : arms) {
        out.add(a.withRegret(null));
      }
      return List.copyOf(out);
    }
    ArmSummary p50Ref = lower(bestStatic, hitMax, ArmSummary::ttftP50SeedMeanMs);
    ArmSummary meanRef = lower(bestStatic, hitMax, ArmSummary::ttftMeanSeedMeanMs);
    for (ArmSummary a : arms) {
      out.add(
          a.withRegret(
              new ArmSummary.Regret(
                  bestStatic == null ? null : bestStatic.policy(),
                  p50Ref.policy(),
                  regret(a.ttftP50SeedMeanMs(), p50Ref.ttftP50SeedMeanMs()),
                  meanRef.policy(),
                  regret(a.ttftMeanSeedMeanMs(), meanRef.ttftMeanSeedMeanMs()))));
    }
    return List.copyOf(out);
  }

  private static ArmSummary lower(
      ArmSummary a, ArmSummary b, java.util.function.ToDoubleFunction<ArmSummary> metric) {
    if (a == null || Double.isNaN(metric.applyAsDouble(a))) {
      return b == null || Double.isNaN(metric.applyAsDouble(b)) ? a : b;
    }
    if (b == null || Double.isNaN(metric.applyAsDouble(b))) {
      return a;
    }
    return metric.applyAsDouble(b) < metric.applyAsDouble(a) ? b : a;
  }

  /**
   * {@code (value − reference) / reference}; NaN when either is undefined or the reference is 0.
   */
  static double regret(double value, double reference) {
    if (!(reference > 0) || Double.isNaN(value) || Double.isInfinite(reference)) {
      return Double.NaN;
    }
    return (value - reference) / reference;
  }

  private static void checkDuration(double durationMs) {
    if (!(durationMs > 0) || Double.isInfinite(durationMs)) {
      throw new IllegalArgumentException("durationMs must be finite and > 0, got " + durationMs);
    }
  }

  /**
   * Nearest-rank percentile of ascending {@code sorted}: the value at rank ⌈p / 100 × n⌉ (at least
   * 1); NaN when empty.
   *
   * @param p in (0, 100]
   */
  public static double percentile(double[] sorted, double p) {
    if (!(p > 0 && p <= 100)) {
      throw new IllegalArgumentException("percentile must be in (0, 100], got " + p);
    }
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(1, Math.min(rank, sorted.length)) - 1];
  }

  /** Most requests on one worker over fewest; +∞ when one got none, NaN without workers. */
  static double maxMinShare(Collection<Long> counts) {
    if (counts.isEmpty()) {
      return Double.NaN;
    }
    long max = Long.MIN_VALUE;
    long min = Long.MAX_VALUE;
    for (long c : counts) {
      max = Math.max(max, c);
      min = Math.min(min, c);
    }
    return min == 0 ? Double.POSITIVE_INFINITY : (double) max / min;
  }
}
