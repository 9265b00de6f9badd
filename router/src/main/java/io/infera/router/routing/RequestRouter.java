package io.infera.router.routing;

import io.infera.router.admin.RouterMetrics;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.kv.MatchResult;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.ApproxPrefixIndex;
import io.infera.router.policy.Booking;
import io.infera.router.policy.Decision;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.Overlap;
import io.infera.router.policy.RoutingPolicy;
import io.infera.router.policy.Worker;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Turns a request's block hashes into a booked pick: candidates from the fleet, overlap from the
 * index (or the approx-prefix history), load snapshot, pure selection, then booking. Thread-safe;
 * never blocks (the index match is lock-free).
 */
public final class RequestRouter {

  /** Requests go to mixed workers when there are any. */
  static final Set<Role> FULL_REQUEST_ROLES = Set.of(Role.MIXED);

  /** A pick or why there is none. */
  public sealed interface Pick {
    record Ok(RoutePlan plan) implements Pick {}

    /**
     * A disaggregated fleet (no routable mixed worker, but prefill and decode ones): the request
     * goes to both, the prefill worker chosen for its cache (prefill overlap weight), the decode
     * worker for its cache and load (decode overlap weight). Both are booked.
     */
    record Pair(RoutePlan prefill, RoutePlan decode) implements Pick {}

    record Failed(RoutingFailure failure) implements Pick {}
  }

  private final Fleet fleet;
  private final PrefixIndex index;
  private final LoadTracker load;
  private final PolicyConfig policyConfig;
  private final RoutingPolicy policy;
  private final ApproxPrefixIndex approx;
  private final RouterMetrics metrics;

  /**
   * @param approx the learned history for {@code approx-prefix} (ignored by other policies)
   */
  public RequestRouter(
      Fleet fleet,
      PrefixIndex index,
      LoadTracker load,
      PolicyConfig policyConfig,
      ApproxPrefixIndex approx,
      RouterMetrics metrics) {
    this.fleet = fleet;
    this.index = index;
    this.load = load;
    this.policyConfig = policyConfig;
    this.policy = RoutingPolicy.of(policyConfig);
    this.approx = approx;
    this.metrics = metrics;
  }

  public PolicyConfig policyConfig() {
    return policyConfig;
  }

  /**
   * Picks and books a worker for one attempt.
   *
   * @param hashes the request's router block hashes (empty when it has no full block or could not
   *     be tokenized: then the pick is by load)
   * @param exclude workers already tried by this request
   * @param hashNanos time already spent hashing, added to the decision-time metric
   */
  public Pick pick(long[] hashes, Set<WorkerId> exclude, long hashNanos) {
    long t0 = System.nanoTime();
    List<Fleet.Member> members = fleet.routable(FULL_REQUEST_ROLES, exclude);
    if (members.isEmpty()) {
      List<Fleet.Member> prefill = fleet.routable(Set.of(Role.PREFILL), exclude);
      List<Fleet.Member> decode = fleet.routable(Set.of(Role.DECODE), exclude);
      if (!prefill.isEmpty() && !decode.isEmpty()) {
        return pickPair(hashes, prefill, decode, hashNanos, t0);
      }
      return new Pick.Failed(noWorker(exclude));
    }
    List<Worker> candidates = rotate(members.stream().map(Fleet.Member::asWorker).toList());
    Matched m = match(hashes, candidates);
    Decision d;
    Booking booking;
    // Load snapshot, choice and booking as one step: concurrent picks on this replica each see
    // the others' bookings instead of all choosing the same least-loaded worker (a herd). The
    // index match, the expensive part, stays outside.
    synchronized (pickLock) {
      d = policy.select(candidates, m.overlap, load.snapshot(candidates));
      booking = load.book(d.winner(), hashes, hashes.length - d.winnerScore().hits());
    }
    Scored s = new Scored(d, m.match);
    Fleet.Member winner = fleet.member(d.winner());
    int hits = d.winnerScore().hits();
    if (policyConfig.name() == PolicyName.APPROX_PREFIX && approx != null) {
      approx.record(d.winner(), hashes);
    }
    int rank = s.match == null ? 0 : s.match.bestRank(d.winner());
    if (metrics != null) {
      metrics.decision(hashNanos + System.nanoTime() - t0, hashes.length, hits);
    }
    return new Pick.Ok(new RoutePlan(winner, d, booking, rank));
  }

  private Pick pickPair(
      long[] hashes,
      List<Fleet.Member> prefillMembers,
      List<Fleet.Member> decodeMembers,
      long hashNanos,
      long t0) {
    List<Worker> prefill = rotate(prefillMembers.stream().map(Fleet.Member::asWorker).toList());
    List<Worker> decode = rotate(decodeMembers.stream().map(Fleet.Member::asWorker).toList());
    Matched mp = match(hashes, prefill);
    Matched md = match(hashes, decode);
    Decision dp;
    Decision dd;
    Booking bp;
    Booking bd;
    synchronized (pickLock) {
      dp = policy.select(prefill, mp.overlap, load.snapshot(prefill));
      bp = load.book(dp.winner(), hashes, hashes.length - dp.winnerScore().hits());
      dd = policy.select(decode, md.overlap, load.snapshot(decode));
      bd = load.book(dd.winner(), hashes, hashes.length - dd.winnerScore().hits());
    }
    if (metrics != null) {
      metrics.decision(hashNanos + System.nanoTime() - t0, hashes.length, dp.winnerScore().hits());
    }
    return new Pick.Pair(
        new RoutePlan(
            fleet.member(dp.winner()),
            dp,
            bp,
            mp.match == null ? 0 : mp.match.bestRank(dp.winner())),
        new RoutePlan(
            fleet.member(dd.winner()),
            dd,
            bd,
            md.match == null ? 0 : md.match.bestRank(dd.winner())));
  }

  /** Whether a request could be routed now: a mixed worker, or a prefill and a decode one. */
  public boolean canRoute() {
    return !fleet.routable(FULL_REQUEST_ROLES, Set.of()).isEmpty()
        || (!fleet.routable(Set.of(Role.PREFILL), Set.of()).isEmpty()
            && !fleet.routable(Set.of(Role.DECODE), Set.of()).isEmpty());
  }

  /**
   * The decision {@link #pick} would make now, without booking anything (for a disaggregated fleet:
   * the prefill worker, the choice the cache decides).
   */
  public Pick explain(long[] hashes) {
    List<Fleet.Member> members = fleet.routable(FULL_REQUEST_ROLES, Set.of());
    if (members.isEmpty()) {
      members = fleet.routable(Set.of(Role.PREFILL), Set.of());
    }
    if (members.isEmpty()) {
      return new Pick.Failed(noWorker(Set.of()));
    }
    List<Worker> candidates = rotate(members.stream().map(Fleet.Member::asWorker).toList());
    Scored s = score(hashes, candidates);
    return new Pick.Ok(
        new RoutePlan(
            fleet.member(s.decision.winner()),
            s.decision,
            null,
            s.match == null ? 0 : s.match.bestRank(s.decision.winner())));
  }

  private record Scored(Decision decision, MatchResult match) {}

  private record Matched(Overlap overlap, MatchResult match) {}

  private volatile int tieRotation;

  /**
   * Breaks cost ties in a stable order of this replica's own: the candidate list rotated by {@code
   * offset}. Replicas that share load set different offsets, so picks made at the same instant
   * (before either hears of the other's booking) spread instead of all taking the first worker.
   */
  public void rotateTies(int offset) {
    this.tieRotation = offset;
  }

  private List<Worker> rotate(List<Worker> candidates) {
    int n = candidates.size();
    int r = n == 0 ? 0 : Math.floorMod(tieRotation, n);
    if (r == 0) {
      return candidates;
    }
    List<Worker> out = new java.util.ArrayList<>(n);
    out.addAll(candidates.subList(r, n));
    out.addAll(candidates.subList(0, r));
    return out;
  }

  private final Object pickLock = new Object();

  private Scored score(long[] hashes, List<Worker> candidates) {
    Matched m = match(hashes, candidates);
    return new Scored(policy.select(candidates, m.overlap, load.snapshot(candidates)), m.match);
  }

  private Matched match(long[] hashes, List<Worker> candidates) {
    Overlap overlap;
    MatchResult match = null;
    if (hashes.length == 0) {
      overlap = Overlap.none(0);
    } else if (policyConfig.name() == PolicyName.APPROX_PREFIX && approx != null) {
      overlap = approx.match(hashes, candidates);
    } else {
      match = index.match(hashes);
      overlap = Overlap.of(match);
    }
    return new Matched(overlap, match);
  }

  private RoutingFailure noWorker(Set<WorkerId> exclude) {
    List<Fleet.Member> all = List.copyOf(fleet.members());
    if (all.isEmpty()) {
      return new RoutingFailure.NoWorker(
          "no worker discovered yet for model pools (pool role mixed): none known");
    }
    Map<String, List<Fleet.Member>> byPool =
        all.stream().collect(Collectors.groupingBy(m -> m.info().pool()));
    StringBuilder sb = new StringBuilder("no routable worker in pool");
    List<String> pools =
        all.stream()
            .filter(m -> FULL_REQUEST_ROLES.contains(m.info().role()))
            .map(m -> m.info().pool())
            .distinct()
            .sorted()
            .toList();
    if (pools.isEmpty()) {
      sb.append(" with role mixed: the fleet has only ")
          .append(all.stream().map(m -> m.info().role().wireName()).distinct().sorted().toList())
          .append(" workers");
      return new RoutingFailure.NoWorker(sb.toString());
    }
    sb.append(pools.size() > 1 ? "s " : " ").append(String.join(", ", pools)).append(" (");
    boolean first = true;
    for (String pool : pools) {
      for (Fleet.Member m : byPool.get(pool)) {
        if (!first) {
          sb.append(", ");
        }
        first = false;
        sb.append(m.info().id()).append(": ").append(why(m, exclude));
      }
    }
    return new RoutingFailure.NoWorker(sb.append(')').toString());
  }

  private static String why(Fleet.Member m, Set<WorkerId> exclude) {
    if (exclude.contains(m.info().id())) {
      return "failed this request";
    }
    if (m.info().readiness() != io.infera.router.discovery.WorkerInfo.Readiness.READY) {
      return "draining";
    }
    if (!m.healthy()) {
      return "unhealthy";
    }
    return "unavailable";
  }
}
