package io.infera.sim.bench;

import io.infera.router.config.DecodeDemandConfig;
import io.infera.router.config.DecodeDemandConfig.GuardRelease;
import io.infera.router.config.DecodeDemandConfig.Mode;
import io.infera.router.config.LoadModel;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.ApproxPrefixIndex;
import io.infera.router.policy.DecodeDemand;
import io.infera.router.policy.InputTokens;
import io.infera.router.policy.LoadTracker;
import io.infera.router.routing.DecodeDemandMeters;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutePlan;
import io.infera.router.routing.RoutingMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * The decode-heavy prefill/decode benchmark of decode input demand (docs/simulator.md, "Decode
 * input demand"): long inputs, few outputs, on a virtual-time fleet of prefill and decode workers
 * behind the production {@link RequestRouter} (real fleet, load tracker, demand bookkeeping and
 * policy; the simulated engines are the simple cost model below, not the full engine cores).
 *
 * <p>Workload: Poisson arrivals; each prompt is one of a few long shared documents (a RAG corpus or
 * a long system prompt, Zipf-popular) plus a short unique question; outputs are a few dozen tokens.
 * Prefill workers compute prompts first come, first served at a fixed rate; a decode worker steps
 * all its requests together, each step taking longer the more input tokens it holds (attention
 * reads their KV). A request holds its decode worker's KV from the pick to its last token.
 *
 * <p>The number reported is the decode workers' in-flight input tokens, sampled every 100 ms of
 * virtual time after a warm-up: the max/min of their time averages, and the mean instantaneous
 * max/min over samples where every worker holds some.
 */
public final class PdDemandBench {

  /**
   * The workload and fleet.
   *
   * @param requests requests per run
   * @param ratePerSecond Poisson arrival rate
   * @param documents shared documents; a prompt is one of them plus a unique question
   * @param minDocTokens shortest document
   * @param maxDocTokens longest document
   * @param minOutput fewest output tokens
   * @param maxOutput most output tokens
   * @param prefillWorkers prefill workers
   * @param decodeWorkers decode workers
   * @param prefillTokensPerSecond one prefill worker's rate
   * @param stepMs a decode step's fixed time
   * @param stepMsPer100kTokens a decode step's extra time per 100,000 input tokens held
   */
  public record Spec(
      int requests,
      double ratePerSecond,
      int documents,
      int minDocTokens,
      int maxDocTokens,
      int minOutput,
      int maxOutput,
      int prefillWorkers,
      int decodeWorkers,
      double prefillTokensPerSecond,
      double stepMs,
      double stepMsPer100kTokens) {

    /**
     * The standard decode-heavy workload: 4,000 requests at 40/s, prompts of 2,000 to 24,000
     * tokens, 32 to 128 output tokens, on 4 prefill and 4 decode workers (about 30 requests in
     * flight per decode worker).
     */
    public static Spec standard() {
      return new Spec(4_000, 40, 12, 2_000, 24_000, 32, 128, 4, 4, 400_000, 15, 2);
    }

    /** This workload with another size, rate and fleet (documents and cost model kept). */
    public Spec with(int requests, double ratePerSecond, int prefillWorkers, int decodeWorkers) {
      return new Spec(
          requests,
          ratePerSecond,
          documents,
          minDocTokens,
          maxDocTokens,
          minOutput,
          maxOutput,
          prefillWorkers,
          decodeWorkers,
          prefillTokensPerSecond,
          stepMs,
          stepMsPer100kTokens);
    }
  }

  /**
   * One run's numbers.
   *
   * @param timeAverageRatio max/min over decode workers of their time-averaged in-flight input
   *     tokens
   * @param meanInstantRatio the mean over samples of max/min in-flight input tokens (samples where
   *     a worker held none are left out and counted in {@code samplesWithIdleWorker})
   * @param p90InstantRatio the 90th percentile of that ratio
   * @param meanTokens each decode worker's time-averaged in-flight input tokens
   * @param agreeShare share of decode picks where demand's suggestion matched the original policy
   * @param meanLatencyMs mean time from arrival to last token
   * @param p90LatencyMs its 90th percentile
   */
  public record Result(
      Mode mode,
      double timeAverageRatio,
      double meanInstantRatio,
      double p90InstantRatio,
      int samples,
      int samplesWithIdleWorker,
      double[] meanTokens,
      double agreeShare,
      double meanLatencyMs,
      double p90LatencyMs) {

    /** One table row. */
    public String row() {
      return String.format(
          Locale.ROOT,
          "| %s | %.2f | %.2f | %.2f | %d/%d | %s | %s | %.0f | %.0f |",
          mode.wire(),
          timeAverageRatio,
          meanInstantRatio,
          p90InstantRatio,
          samplesWithIdleWorker,
          samples,
          Arrays.toString(Arrays.stream(meanTokens).mapToLong(Math::round).toArray()),
          Double.isNaN(agreeShare) ? "-" : String.format(Locale.ROOT, "%.2f", agreeShare),
          meanLatencyMs,
          p90LatencyMs);
    }

    /** The columns of {@link #csvHeader()}, for seed {@code seed}. */
    public String csv(long seed) {
      return String.format(
          Locale.ROOT,
          "%d,%s,%.4f,%.4f,%.4f,%d,%d,%s,%s,%.1f,%.1f",
          seed,
          mode.wire(),
          timeAverageRatio,
          meanInstantRatio,
          p90InstantRatio,
          samples,
          samplesWithIdleWorker,
          String.join(
              ";",
              Arrays.stream(meanTokens)
                  .mapToObj(t -> Long.toString(Math.round(t)))
                  .toArray(String[]::new)),
          Double.isNaN(agreeShare) ? "" : String.format(Locale.ROOT, "%.4f", agreeShare),
          meanLatencyMs,
          p90LatencyMs);
    }

    public static String csvHeader() {
      return "seed,demand,time_avg_ratio,mean_instant_ratio,p90_instant_ratio,samples,"
          + "samples_with_idle_worker,time_avg_tokens_per_decode_worker,suggestion_agrees,"
          + "mean_latency_ms,p90_latency_ms";
    }

    public static String header() {
      return "| demand | max/min of time-avg in-flight input tokens | mean instant max/min | p90"
          + " instant max/min | samples with an idle decode worker | time-avg tokens per decode"
          + " worker | suggestion agrees | mean latency ms | p90 latency ms |\n"
          + "|---|---|---|---|---|---|---|---|---|";
    }
  }

  private PdDemandBench() {}

  private static final long SAMPLE_NS = 100_000_000L;

  /** One simulated request. */
  static final class Req {
    final int id;
    final long arrival;
    final int tokens;
    final int output;
    final long[] hashes;
    RoutePlan prefill;
    RoutePlan decode;
    int decoder;
    int produced;

    Req(int id, long arrival, int tokens, int output, long[] hashes) {
      this.id = id;
      this.arrival = arrival;
      this.tokens = tokens;
      this.output = output;
      this.hashes = hashes;
    }
  }

  private record Event(long at, int kind, int seq, Req req, int worker)
      implements Comparable<Event> {
    static final int ARRIVE = 0;
    static final int PREFILLED = 1;
    static final int STEP = 2;
    static final int SAMPLE = 3;

    @Override
    public int compareTo(Event o) {
      int c = Long.compare(at, o.at);
      return c != 0 ? c : Integer.compare(seq, o.seq);
    }
  }

  /** Runs one mode on one seed; the workload depends on the seed only. */
  public static Result run(Spec spec, Mode mode, long seed) {
    long[] now = {0};
    LoadTracker load = new LoadTracker(LoadModel.DEFAULTS, () -> now[0]);
    Fleet fleet = new Fleet(3, 1_000, 10_000, () -> now[0] / 1_000_000L);
    List<WorkerInfo> workers = new ArrayList<>();
    for (int i = 0; i < spec.prefillWorkers(); i++) {
      workers.add(info("p" + i, Role.PREFILL));
    }
    List<WorkerId> decodeIds = new ArrayList<>();
    for (int i = 0; i < spec.decodeWorkers(); i++) {
      workers.add(info("d" + i, Role.DECODE));
      decodeIds.add(WorkerId.of("d" + i));
    }
    fleet.apply(workers);
    RequestRouter router =
        new RequestRouter(
            fleet,
            new PrefixIndex(16),
            load,
            new PolicyConfig(PolicyName.KV_AWARE, 1.0, null, null),
            new ApproxPrefixIndex(60_000, 10_000, () -> now[0] / 1_000_000L),
            new RoutingMetrics());
    DecodeDemand demand = new DecodeDemand();
    router.attachDecodeDemand(
        new DecodeDemandConfig(mode, 0, GuardRelease.DECODE),
        demand,
        new DecodeDemandMeters(demand, new SimpleMeterRegistry()));

    List<Req> reqs = workload(spec, seed);
    PriorityQueue<Event> q = new PriorityQueue<>();
    int[] seq = {0};
    for (Req r : reqs) {
      q.add(new Event(r.arrival, Event.ARRIVE, seq[0]++, r, -1));
    }
    long end = reqs.get(reqs.size() - 1).arrival;
    long warmup = end / 10;
    q.add(new Event(warmup, Event.SAMPLE, seq[0]++, null, -1));

    Map<String, Integer> prefillIndex = new HashMap<>();
    Map<String, Integer> decodeIndex = new HashMap<>();
    for (int i = 0; i < spec.prefillWorkers(); i++) {
      prefillIndex.put("p" + i, i);
    }
    for (int i = 0; i < spec.decodeWorkers(); i++) {
      decodeIndex.put("d" + i, i);
    }
    long[] prefillFree = new long[spec.prefillWorkers()];
    long[] held = new long[spec.decodeWorkers()];
    List<List<Req>> batch = new ArrayList<>();
    boolean[] stepping = new boolean[spec.decodeWorkers()];
    for (int i = 0; i < spec.decodeWorkers(); i++) {
      batch.add(new ArrayList<>());
    }
    double[] tokenTime = new double[spec.decodeWorkers()];
    List<Double> ratios = new ArrayList<>();
    int samples = 0;
    int idle = 0;
    int agree = 0;
    int judged = 0;
    List<Double> latencies = new ArrayList<>();

    while (!q.isEmpty()) {
      Event e = q.poll();
      now[0] = e.at();
      switch (e.kind()) {
        case Event.ARRIVE -> {
          Req r = e.req();
          RequestRouter.Pick pick =
              router.pick(
                  RequestHashes.of(r.hashes),
                  new InputTokens(r.tokens, 1, true, false),
                  java.util.Set.of(),
                  0);
          RequestRouter.Pick.Pair pair = (RequestRouter.Pick.Pair) pick;
          r.prefill = pair.prefill();
          r.decode = pair.decode();
          if (r.decode.demand() != null) {
            judged++;
            agree += r.decode.demand().agrees() ? 1 : 0;
          }
          int p = prefillIndex.get(r.prefill.worker().info().id().value());
          r.decoder = decodeIndex.get(r.decode.worker().info().id().value());
          held[r.decoder] += r.tokens;
          long start = Math.max(now[0], prefillFree[p]);
          long done = start + (long) (r.tokens / spec.prefillTokensPerSecond() * 1e9);
          prefillFree[p] = done;
          q.add(new Event(done, Event.PREFILLED, seq[0]++, r, -1));
        }
        case Event.PREFILLED -> {
          Req r = e.req();
          r.prefill.booking().firstToken();
          int d = r.decoder;
          batch.get(d).add(r);
          if (!stepping[d]) {
            stepping[d] = true;
            q.add(new Event(now[0] + stepNs(spec, held[d]), Event.STEP, seq[0]++, null, d));
          }
        }
        case Event.STEP -> {
          int d = e.worker();
          List<Req> b = batch.get(d);
          List<Req> left = new ArrayList<>(b.size());
          for (Req r : b) {
            r.produced++;
            if (r.produced == 1) {
              r.decode.booking().firstToken();
            }
            if (r.produced >= r.output) {
              r.decode.release();
              r.prefill.release(); // guard release "decode": the prefill booking ends here
              held[d] -= r.tokens;
              latencies.add((now[0] - r.arrival) / 1e6);
            } else {
              left.add(r);
            }
          }
          batch.set(d, left);
          if (left.isEmpty()) {
            stepping[d] = false;
          } else {
            q.add(new Event(now[0] + stepNs(spec, held[d]), Event.STEP, seq[0]++, null, d));
          }
        }
        case Event.SAMPLE -> {
          if (now[0] > end) {
            break;
          }
          samples++;
          long max = Long.MIN_VALUE;
          long min = Long.MAX_VALUE;
          for (int d = 0; d < held.length; d++) {
            tokenTime[d] += held[d];
            max = Math.max(max, held[d]);
            min = Math.min(min, held[d]);
          }
          if (min <= 0) {
            idle++;
          } else {
            ratios.add((double) max / min);
          }
          q.add(new Event(now[0] + SAMPLE_NS, Event.SAMPLE, seq[0]++, null, -1));
        }
        default -> throw new IllegalStateException("event " + e.kind());
      }
    }
    for (Req r : reqs) {
      if (r.decode.booking().isOpen() || r.prefill.booking().isOpen()) {
        throw new IllegalStateException("request " + r.id + " still booked at the end");
      }
    }
    for (WorkerId id : decodeIds) {
      if (load.load(id).inFlight() != 0) {
        throw new IllegalStateException(id + " still has load at the end");
      }
    }
    double[] mean = new double[tokenTime.length];
    double maxMean = 0;
    double minMean = Double.MAX_VALUE;
    for (int d = 0; d < mean.length; d++) {
      mean[d] = samples == 0 ? 0 : tokenTime[d] / samples;
      maxMean = Math.max(maxMean, mean[d]);
      minMean = Math.min(minMean, mean[d]);
    }
    ratios.sort(null);
    latencies.sort(null);
    return new Result(
        mode,
        minMean > 0 ? maxMean / minMean : Double.POSITIVE_INFINITY,
        ratios.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN),
        ratios.isEmpty() ? Double.NaN : ratios.get((int) (0.9 * (ratios.size() - 1))),
        samples,
        idle,
        mean,
        judged == 0 ? Double.NaN : (double) agree / judged,
        latencies.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN),
        latencies.isEmpty() ? Double.NaN : latencies.get((int) (0.9 * (latencies.size() - 1))));
  }

  private static long stepNs(Spec spec, long heldTokens) {
    return (long) ((spec.stepMs() + spec.stepMsPer100kTokens() * heldTokens / 100_000.0) * 1e6);
  }

  /** The seed's requests: arrivals, a Zipf-popular document plus a unique question, outputs. */
  static List<Req> workload(Spec spec, long seed) {
    Random rnd = new Random(seed);
    int[] docTokens = new int[spec.documents()];
    long[][] docHashes = new long[spec.documents()][];
    double[] cdf = new double[spec.documents()];
    double sum = 0;
    for (int i = 0; i < docTokens.length; i++) {
      docTokens[i] =
          spec.minDocTokens() + rnd.nextInt(spec.maxDocTokens() - spec.minDocTokens() + 1);
      docHashes[i] = new long[docTokens[i] / 16];
      for (int b = 0; b < docHashes[i].length; b++) {
        docHashes[i][b] = rnd.nextLong();
      }
      sum += 1.0 / (i + 1);
      cdf[i] = sum;
    }
    List<Req> out = new ArrayList<>(spec.requests());
    long t = 0;
    for (int i = 0; i < spec.requests(); i++) {
      t += (long) (-Math.log(1 - rnd.nextDouble()) / spec.ratePerSecond() * 1e9);
      double u = rnd.nextDouble() * sum;
      int doc = 0;
      while (cdf[doc] < u) {
        doc++;
      }
      int question = 50 + rnd.nextInt(250);
      int tokens = docTokens[doc] + question;
      long[] hashes = Arrays.copyOf(docHashes[doc], tokens / 16);
      for (int b = docHashes[doc].length; b < hashes.length; b++) {
        hashes[b] = rnd.nextLong();
      }
      int output = spec.minOutput() + rnd.nextInt(spec.maxOutput() - spec.minOutput() + 1);
      out.add(new Req(i, t, tokens, output, hashes));
    }
    return out;
  }

  private static WorkerInfo info(String id, Role role) {
    return new WorkerInfo(
        WorkerId.of(id),
        "http://127.0.0.1:1",
        role,
        "sglang",
        1,
        null,
        null,
        WorkerInfo.Readiness.READY,
        "pool-" + role.wireName());
  }
}
