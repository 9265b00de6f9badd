package io.infera.sim.bench.report;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One arm's results pooled over its seeds. Latencies and throughput count successful requests only;
 * undefined values (no data) are NaN. Built by {@link Summaries}.
 *
 * @param policy the arm
 * @param seeds number of distinct seeds pooled
 * @param requests all requests sent, failed ones included
 * @param errors failed requests, rejections included
 * @param rejections errors of kind {@link RequestResult#REJECTED}
 * @param ttftP50Ms median time to first token (nearest rank)
 * @param ttftP90Ms 90th percentile TTFT
 * @param ttftP99Ms 99th percentile TTFT
 * @param itlP50Ms median inter-token latency over all pooled gaps
 * @param itlP99Ms 99th percentile inter-token latency
 * @param throughputTokS output tokens of successful requests per second of run time (all seeds'
 *     tokens over all seeds' run time)
 * @param hitRatio Σ cached tokens / Σ prompt tokens over successful requests
 * @param hitRatioVsOracle {@code hitRatio} / the oracle arm's hit ratio; null without an oracle
 * @param maxMinShare most requests on one worker / fewest on one; +∞ when a worker got none
 * @param perWorkerRequests requests routed to each worker, in natural worker order
 * @param ttftMeanMs mean TTFT over every seed's requests
 * @param ttftP50SeedMeanMs each seed's median TTFT, averaged over the seeds (what regret compares)
 * @param ttftMeanSeedMeanMs each seed's mean TTFT, averaged over the seeds
 * @param regret this arm against the best reference arm of the run; null without references
 * @param multimodal where the arm's images went, all seeds pooled ({@link MultimodalStats#NONE}
 *     without images)
 */
public record ArmSummary(
    String policy,
    int seeds,
    int requests,
    int errors,
    int rejections,
    double ttftP50Ms,
    double ttftP90Ms,
    double ttftP99Ms,
    double itlP50Ms,
    double itlP99Ms,
    double throughputTokS,
    double hitRatio,
    Double hitRatioVsOracle,
    double maxMinShare,
    Map<String, Long> perWorkerRequests,
    double ttftMeanMs,
    double ttftP50SeedMeanMs,
    double ttftMeanSeedMeanMs,
    Regret regret,
    MultimodalStats multimodal) {

  public ArmSummary {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(multimodal, "multimodal");
    perWorkerRequests = Collections.unmodifiableMap(new LinkedHashMap<>(perWorkerRequests));
  }

  /**
   * Regret against the run's references ({@link Summaries#withReferences}): {@code (this arm −
   * reference) / reference} on the seed-mean TTFT, so 0.05 is 5 % slower than the reference and a
   * negative value is faster.
   *
   * @param bestStatic the sweep arm with the lowest seed-mean of mean TTFT (the best static overlap
   *     weight in hindsight), or null without sweep arms
   * @param p50Reference the reference arm with the lowest seed-mean p50 TTFT (best static or
   *     hit-max)
   * @param p50 regret on the seed-mean p50 TTFT; NaN when undefined
   * @param meanReference the reference arm with the lowest seed-mean of mean TTFT
   * @param mean regret on the seed-mean of mean TTFT; NaN when undefined
   */
  public record Regret(
      String bestStatic, String p50Reference, double p50, String meanReference, double mean) {}

  /** The summary without the mean and regret fields (NaN / null). */
  public ArmSummary(
      String policy,
      int seeds,
      int requests,
      int errors,
      int rejections,
      double ttftP50Ms,
      double ttftP90Ms,
      double ttftP99Ms,
      double itlP50Ms,
      double itlP99Ms,
      double throughputTokS,
      double hitRatio,
      Double hitRatioVsOracle,
      double maxMinShare,
      Map<String, Long> perWorkerRequests) {
    this(
        policy,
        seeds,
        requests,
        errors,
        rejections,
        ttftP50Ms,
        ttftP90Ms,
        ttftP99Ms,
        itlP50Ms,
        itlP99Ms,
        throughputTokS,
        hitRatio,
        hitRatioVsOracle,
        maxMinShare,
        perWorkerRequests,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        null,
        MultimodalStats.NONE);
  }

  /** A copy with {@code hitRatioVsOracle} replaced. */
  public ArmSummary withHitRatioVsOracle(Double vsOracle) {
    return new ArmSummary(
        policy,
        seeds,
        requests,
        errors,
        rejections,
        ttftP50Ms,
        ttftP90Ms,
        ttftP99Ms,
        itlP50Ms,
        itlP99Ms,
        throughputTokS,
        hitRatio,
        vsOracle,
        maxMinShare,
        perWorkerRequests,
        ttftMeanMs,
        ttftP50SeedMeanMs,
        ttftMeanSeedMeanMs,
        regret,
        multimodal);
  }

  /** A copy with {@code regret} replaced. */
  public ArmSummary withRegret(Regret r) {
    return new ArmSummary(
        policy,
        seeds,
        requests,
        errors,
        rejections,
        ttftP50Ms,
        ttftP90Ms,
        ttftP99Ms,
        itlP50Ms,
        itlP99Ms,
        throughputTokS,
        hitRatio,
        hitRatioVsOracle,
        maxMinShare,
        perWorkerRequests,
        ttftMeanMs,
        ttftP50SeedMeanMs,
        ttftMeanSeedMeanMs,
        r,
        multimodal);
  }

  /** A copy with {@code multimodal} replaced. */
  public ArmSummary withMultimodal(MultimodalStats m) {
    return new ArmSummary(
        policy,
        seeds,
        requests,
        errors,
        rejections,
        ttftP50Ms,
        ttftP90Ms,
        ttftP99Ms,
        itlP50Ms,
        itlP99Ms,
        throughputTokS,
        hitRatio,
        hitRatioVsOracle,
        maxMinShare,
        perWorkerRequests,
        ttftMeanMs,
        ttftP50SeedMeanMs,
        ttftMeanSeedMeanMs,
        regret,
        m);
  }
}
