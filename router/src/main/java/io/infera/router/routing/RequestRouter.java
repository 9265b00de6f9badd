package io.infera.router.routing;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.engineload.EngineLoadTable;
import io.infera.router.kv.MatchResult;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.ApproxPrefixIndex;
import io.infera.router.policy.Booking;
import io.infera.router.policy.Decision;
import io.infera.router.policy.LoadSnapshot;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.Overlap;
import io.infera.router.policy.OverlapWeight;
import io.infera.router.policy.PickWeights;
import io.infera.router.policy.RoutingPolicy;
import io.infera.router.policy.Worker;
import io.infera.router.policy.tuner.OverlapTuning;
import io.infera.router.policy.tuner.Probe;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Turns a request's block hashes into a booked pick: candidates from the fleet, overlap from the
 * index (or the approx-prefix history), load snapshot, pure selection, then booking. A mixed pick
 * and each half of a prefill/decode pair go through the same {@link #choose} step. Thread-safe;
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
  private final OverlapTuning tuning;
  private final ApproxPrefixIndex approx;
  private final RoutingMetrics metrics;
  private final LongSupplier nanoTime;
  private final Object pickLock = new Object();
  private volatile int tieRotation;
  private volatile EngineLoadTable engineLoad;

  /**
   * @param approx the learned history for {@code approx-prefix} (ignored by other policies)
   */
  public RequestRouter(
      Fleet fleet,
      PrefixIndex index,
      LoadTracker load,
      PolicyConfig policyConfig,
      ApproxPrefixIndex approx,
      RoutingMetrics metrics) {
    this(fleet, index, load, policyConfig, approx, metrics, System::nanoTime);
  }

  RequestRouter(
      Fleet fleet,
      PrefixIndex index,
      LoadTracker load,
      PolicyConfig policyConfig,
      ApproxPrefixIndex approx,
      RoutingMetrics metrics,
      LongSupplier nanoTime) {
    this.fleet = fleet;
    this.index = index;
    this.load = load;
    this.policyConfig = policyConfig;
    this.policy = RoutingPolicy.of(policyConfig);
    this.tuning = new OverlapTuning(policyConfig);
    this.approx = approx;
    this.metrics = metrics;
    this.nanoTime = nanoTime;
  }

  public PolicyConfig policyConfig() {
    return policyConfig;
  }

  /** The pools' overlap weights (tuned or fixed), for metrics, status and load sharing. */
  public OverlapTuning tuning() {
    return tuning;
  }

  /** As {@link #pick(RequestHashes, Set, long)} for a fleet hashed at the page size only. */
  public Pick pick(long[] hashes, Set<WorkerId> exclude, long hashNanos) {
    return pick(RequestHashes.of(hashes), exclude, hashNanos);
  }

  /**
   * Picks and books a worker (or a prefill/decode pair) for one attempt.
   *
   * @param hashes the request's router block hashes, one chain per block size in use (empty when it
   *     has no full block or could not be tokenized: then the pick is by load)
   * @param exclude workers already tried by this request
   * @param hashNanos time already spent hashing, added to the decision-time metric
   */
  public Pick pick(RequestHashes hashes, Set<WorkerId> exclude, long hashNanos) {
    return pick(hashes, Map.of(), exclude, hashNanos);
  }

  /**
   * As {@link #pick(RequestHashes, Set, long)}, with the workers that render the request
   * differently from the router (docs/routing.md, "Render parity") matched with their own hashes.
   *
   * @param own per diverging worker, the request's hashes from its own tokenization; empty hashes
   *     mean unknown (that worker gets no cache term, it is balanced by load)
   */
  public Pick pick(
      RequestHashes hashes,
      Map<WorkerId, RequestHashes> own,
      Set<WorkerId> exclude,
      long hashNanos) {
    long t0 = nanoTime.getAsLong();
    List<Fleet.Member> mixed = fleet.routable(FULL_REQUEST_ROLES, exclude);
    Pick pick;
    RoutePlan cachePlan;
    if (!mixed.isEmpty()) {
      RoutePlan plan = choose(mixed, hashes, own, true);
      pick = new Pick.Ok(plan);
      cachePlan = plan;
    } else {
      List<Fleet.Member> prefill = fleet.routable(Set.of(Role.PREFILL), exclude);
      List<Fleet.Member> decode = fleet.routable(Set.of(Role.DECODE), exclude);
      if (prefill.isEmpty() || decode.isEmpty()) {
        return new Pick.Failed(noWorker(exclude));
      }
      RoutePlan p = choose(prefill, hashes, own, true);
      pick = new Pick.Pair(p, choose(decode, hashes, own, true));
      cachePlan = p; // the prefill worker is the one whose cache saves the work
    }
    if (metrics != null) {
      metrics.decision(
          hashNanos + nanoTime.getAsLong() - t0, hashes.length(), cachePlan.hitBlocks());
    }
    return pick;
  }

  /**
   * The decision {@link #pick} would make now, without booking or learning anything (for a
   * disaggregated fleet: the prefill worker, the choice the cache decides).
   */
  public Pick explain(long[] hashes) {
    return explain(RequestHashes.of(hashes));
  }

  /** As {@link #explain(long[])} with every block size's chain. */
  public Pick explain(RequestHashes hashes) {
    return explain(hashes, Map.of());
  }

  /** As {@link #explain(RequestHashes)}, diverging workers matched with their own hashes. */
  public Pick explain(RequestHashes hashes, Map<WorkerId, RequestHashes> own) {
    List<Fleet.Member> members = fleet.routable(FULL_REQUEST_ROLES, Set.of());
    if (members.isEmpty()) {
      members = fleet.routable(Set.of(Role.PREFILL), Set.of());
    }
    if (members.isEmpty()) {
      return new Pick.Failed(noWorker(Set.of()));
    }
    return new Pick.Ok(choose(members, hashes, own, false));
  }

  /**
   * The one selection step: match outside the lock (the expensive part), then load snapshot, choice
   * and booking as one step under it — concurrent picks on this replica each see the others'
   * bookings instead of all choosing the same least-loaded worker (a herd). A booked pick also
   * teaches the approx-prefix history that the winner now holds these blocks.
   *
   * @param book false for {@link #explain}: no booking, nothing learned
   */
  private RoutePlan choose(
      List<Fleet.Member> members,
      RequestHashes request,
      Map<WorkerId, RequestHashes> own,
      boolean book) {
    List<Fleet.Member> ordered = rotate(members);
    List<Worker> candidates = ordered.stream().map(Fleet.Member::asWorker).toList();
    // Load, booking and the approx-prefix history count blocks of the page size.
    long[] hashes = request.base();
    Overlap overlap;
    MatchResult match = null;
    if (hashes.length == 0) {
      overlap = Overlap.none(0);
    } else if (approxPrefix()) {
      overlap = approx.match(hashes, candidates);
    } else {
      match = index.match(request);
      overlap = own.isEmpty() ? Overlap.of(match) : withOwnHashes(match, own);
    }
    Decision d;
    Booking booking = null;
    Probe probe = null;
    if (book) {
      synchronized (pickLock) {
        d = policy.select(candidates, overlap, snapshot(candidates), weights(ordered));
        booking = load.book(d.winner(), hashes, hashes.length - d.winnerScore().hits());
        if (policy instanceof RoutingPolicy.KvAware) {
          Fleet.Member w = fleet.member(d.winner());
          probe = tuning.booked(w.info().pool(), w.info().role(), hashes.length);
        }
      }
      EngineLoadTable e = engineLoad;
      if (e != null) {
        e.booked(d.winner(), hashes.length, d.winnerScore().hits());
      }
      if (approxPrefix()) {
        approx.record(d.winner(), hashes);
      }
    } else {
      d = policy.select(candidates, overlap, snapshot(candidates), weights(ordered));
    }
    int rank = match == null ? 0 : match.bestRank(d.winner());
    return new RoutePlan(fleet.member(d.winner()), d, booking, rank, probe);
  }

  /**
   * The overlap with each diverging worker's hits taken from its own hashes (one index match per
   * distinct chain: the workers of one template variant share theirs).
   */
  private Overlap withOwnHashes(MatchResult match, Map<WorkerId, RequestHashes> own) {
    Map<WorkerId, Integer> hits = new HashMap<>(match.byWorker());
    Map<RequestHashes, MatchResult> matched = new IdentityHashMap<>();
    for (Map.Entry<WorkerId, RequestHashes> e : own.entrySet()) {
      RequestHashes h = e.getValue();
      int n = h.isEmpty() ? 0 : matched.computeIfAbsent(h, index::match).hits(e.getKey());
      hits.put(e.getKey(), n);
    }
    return new Overlap(match.requestBlocks(), hits);
  }

  /**
   * Each candidate's pool weight now (consecutive members of one pool and role share one lookup),
   * with no retention hint: requests carry none yet.
   */
  private PickWeights weights(List<Fleet.Member> ordered) {
    double[] pool = new double[ordered.size()];
    String lastPool = null;
    Role lastRole = null;
    double last = 0;
    for (int i = 0; i < pool.length; i++) {
      Fleet.Member m = ordered.get(i);
      String p = m.info().pool();
      Role r = m.info().role();
      if (i == 0 || r != lastRole || !Objects.equals(p, lastPool)) {
        last = tuning.weight(p, r);
        lastPool = p;
        lastRole = r;
      }
      pool[i] = last;
    }
    return new PickWeights(pool, OverlapWeight.NO_HINT);
  }

  /** The tracker's load snapshot plus, when attached, the engine-reported term. */
  private LoadSnapshot snapshot(List<Worker> candidates) {
    LoadSnapshot snap = load.snapshot(candidates);
    EngineLoadTable e = engineLoad;
    return e == null ? snap : e.withTerms(candidates, snap);
  }

  /**
   * Adds engine-reported load to every pick from now on (docs/routing.md, "Engine-reported load")
   * and tells {@code table} what each pick booked.
   */
  public void attachEngineLoad(EngineLoadTable table) {
    this.engineLoad = table;
  }

  private boolean approxPrefix() {
    return policyConfig.name() == PolicyName.APPROX_PREFIX && approx != null;
  }

  /**
   * Why no request could be routed now (no mixed worker, nor a prefill and a decode one), naming
   * every worker's {@link Eligibility}; empty when one could.
   */
  public Optional<String> notRoutableReason() {
    return canRoute() ? Optional.empty() : Optional.of(NoWorkerMessage.notReady(fleet.members()));
  }

  /** Whether a request could be routed now: a mixed worker, or a prefill and a decode one. */
  public boolean canRoute() {
    return !fleet.routable(FULL_REQUEST_ROLES, Set.of()).isEmpty()
        || (!fleet.routable(Set.of(Role.PREFILL), Set.of()).isEmpty()
            && !fleet.routable(Set.of(Role.DECODE), Set.of()).isEmpty());
  }

  /**
   * {@code tokenizer.mode: engine}: the worker whose {@code POST /tokenize} analyses this request —
   * a routable mixed worker chosen by the request id (spreads the extra hop); on a disaggregated
   * fleet a prefill worker, else a decode one (they serve the same model); empty when no worker is
   * routable (the request is then routed by load).
   */
  public Optional<Fleet.Member> tokenizeWorker(String requestId) {
    for (Set<Role> roles : List.of(FULL_REQUEST_ROLES, Set.of(Role.PREFILL), Set.of(Role.DECODE))) {
      List<Fleet.Member> members = fleet.routable(roles, Set.of());
      if (!members.isEmpty()) {
        return Optional.of(members.get(Math.floorMod(requestId.hashCode(), members.size())));
      }
    }
    return Optional.empty();
  }

  /**
   * Breaks cost ties in a stable order of this replica's own: the candidate list rotated by {@code
   * offset}. Replicas that share load set different offsets, so picks made at the same instant
   * (before either hears of the other's booking) spread instead of all taking the first worker.
   */
  public void rotateTies(int offset) {
    this.tieRotation = offset;
  }

  private <T> List<T> rotate(List<T> candidates) {
    int n = candidates.size();
    int r = n == 0 ? 0 : Math.floorMod(tieRotation, n);
    if (r == 0) {
      return candidates;
    }
    List<T> out = new ArrayList<>(n);
    out.addAll(candidates.subList(r, n));
    out.addAll(candidates.subList(0, r));
    return out;
  }

  /**
   * Why a request cannot be routed, naming the pools of mixed workers and each worker's {@link
   * Eligibility}, or the roles the fleet has when it has no mixed pool.
   */
  private RoutingFailure noWorker(Set<WorkerId> exclude) {
    return new RoutingFailure.NoWorker(NoWorkerMessage.of(fleet.members(), exclude));
  }
}
