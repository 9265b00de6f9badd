package io.infera.router.routing;

import io.infera.router.config.DecodeDemandConfig;
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
import io.infera.router.policy.DecodeDemand;
import io.infera.router.policy.DemandPick;
import io.infera.router.policy.DemandSelection;
import io.infera.router.policy.DemandTarget;
import io.infera.router.policy.ImageAffinity;
import io.infera.router.policy.ImageOverlap;
import io.infera.router.policy.InputTokens;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a request's block hashes into a booked pick: candidates from the fleet, overlap from the
 * index (or the approx-prefix history), load snapshot, pure selection, then booking. A mixed pick
 * and each half of a prefill/decode pair go through the same {@link #choose} step. Thread-safe;
 * never blocks (the index match is lock-free).
 */
public final class RequestRouter {

  private static final Logger log = LoggerFactory.getLogger(RequestRouter.class);

  /**
   * Prompt tokens assumed per image for the image-affinity term: the router cannot know the
   * engine's placeholder expansion (it depends on the image and the processor), so one typical size
   * (576, a 24 × 24 patch grid) stands for all.
   */
  public static final int IMAGE_TOKENS_ESTIMATE = 576;

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
  private final ImageAffinity imageAffinity;
  private final int imageBlocks;
  private final Object pickLock = new Object();
  private volatile int tieRotation;
  private volatile EngineLoadTable engineLoad;
  private volatile DemandParts demand;

  /** Decode input demand, when attached: its settings, bookkeeping and meters. */
  private record DemandParts(
      DecodeDemandConfig config, DecodeDemand table, DecodeDemandMeters meters) {}

  private volatile SessionAffinity sessions = SessionAffinity.off();

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
    this(
        fleet,
        index,
        load,
        policyConfig,
        approx,
        metrics,
        nanoTime,
        new ImageAffinity(ImageAffinity.DEFAULT_ENTRIES),
        16);
  }

  /**
   * @param imageAffinity the image keys each worker served lately (multimodal requests)
   * @param pageSize the fleet's block size, for the per-image estimate of the affinity term
   */
  public RequestRouter(
      Fleet fleet,
      PrefixIndex index,
      LoadTracker load,
      PolicyConfig policyConfig,
      ApproxPrefixIndex approx,
      RoutingMetrics metrics,
      ImageAffinity imageAffinity,
      int pageSize) {
    this(
        fleet,
        index,
        load,
        policyConfig,
        approx,
        metrics,
        System::nanoTime,
        imageAffinity,
        pageSize);
  }

  RequestRouter(
      Fleet fleet,
      PrefixIndex index,
      LoadTracker load,
      PolicyConfig policyConfig,
      ApproxPrefixIndex approx,
      RoutingMetrics metrics,
      LongSupplier nanoTime,
      ImageAffinity imageAffinity,
      int pageSize) {
    this.imageAffinity = Objects.requireNonNull(imageAffinity, "imageAffinity");
    this.imageBlocks = (IMAGE_TOKENS_ESTIMATE + pageSize - 1) / pageSize;
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
    return pick(hashes, Map.of(), InputTokens.NONE, MediaRefs.Media.NONE, exclude, hashNanos, null);
  }

  /**
   * As {@link #pick(RequestHashes, Set, long)}, with the request's input tokens for decode input
   * demand (used only by a decode pick with {@code policy.decodeInputDemand} shadow or on).
   */
  public Pick pick(RequestHashes hashes, InputTokens input, Set<WorkerId> exclude, long hashNanos) {
    return pick(hashes, Map.of(), input, MediaRefs.Media.NONE, exclude, hashNanos, null);
  }

  /** As {@link #pick(RequestHashes, Set, long)} for a request that may carry images. */
  public Pick pick(
      RequestHashes hashes, MediaRefs.Media media, Set<WorkerId> exclude, long hashNanos) {
    return pick(hashes, Map.of(), InputTokens.NONE, media, exclude, hashNanos, null);
  }

  /** As {@link #pick(RequestHashes, Set, long)} for a request of {@code session} (null: none). */
  public Pick pick(
      RequestHashes hashes, Set<WorkerId> exclude, long hashNanos, SessionKey session) {
    return pick(
        hashes, Map.of(), InputTokens.NONE, MediaRefs.Media.NONE, exclude, hashNanos, session);
  }

  /**
   * As {@link #pick(RequestHashes, Set, long)}, with the workers that render the request
   * differently from the router (docs/routing.md, "Render parity") matched with their own hashes.
   */
  public Pick pick(
      RequestHashes hashes,
      Map<WorkerId, RequestHashes> own,
      Set<WorkerId> exclude,
      long hashNanos) {
    return pick(hashes, own, InputTokens.NONE, MediaRefs.Media.NONE, exclude, hashNanos, null);
  }

  /**
   * As {@link #pick(RequestHashes, Set, long)} with everything the request brings: a multimodal one
   * is chosen by image affinity instead of its text hits (kv-aware and approx-prefix; under
   * prefill/decode the prefill pick, the decode pick is by load), and the winner is remembered as
   * holding its images; a bound session keeps its workers while they can take it (docs/routing.md,
   * "Session affinity").
   *
   * @param own per diverging worker (render parity), the request's hashes from its own
   *     tokenization; empty hashes mean unknown (that worker gets no cache term, it is balanced by
   *     load)
   * @param input the request's input tokens for decode input demand
   * @param session the request's session, or null for none
   */
  public Pick pick(
      RequestHashes hashes,
      Map<WorkerId, RequestHashes> own,
      InputTokens input,
      MediaRefs.Media media,
      Set<WorkerId> exclude,
      long hashNanos,
      SessionKey session) {
    long t0 = nanoTime.getAsLong();
    List<Fleet.Member> mixed = fleet.routable(FULL_REQUEST_ROLES, exclude);
    Pick pick;
    RoutePlan cachePlan;
    if (!mixed.isEmpty()) {
      RoutePlan plan = choose(mixed, hashes, own, null, media, Side.CACHE, true, session, exclude);
      pick = new Pick.Ok(plan);
      cachePlan = plan;
    } else {
      List<Fleet.Member> prefill = fleet.routable(Set.of(Role.PREFILL), exclude);
      List<Fleet.Member> decode = fleet.routable(Set.of(Role.DECODE), exclude);
      if (prefill.isEmpty() || decode.isEmpty()) {
        return new Pick.Failed(noWorker(exclude));
      }
      RoutePlan p = choose(prefill, hashes, own, null, media, Side.CACHE, true, session, exclude);
      pick =
          new Pick.Pair(
              p, choose(decode, hashes, own, input, media, Side.DECODE, true, session, exclude));
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
    return explain(hashes, Map.of(), MediaRefs.Media.NONE, null);
  }

  /** As {@link #explain(RequestHashes)} for a request that may carry images. */
  public Pick explain(RequestHashes hashes, MediaRefs.Media media) {
    return explain(hashes, Map.of(), media, null);
  }

  /** As {@link #explain(RequestHashes)} for a text request of {@code session}. */
  public Pick explain(RequestHashes hashes, SessionKey session) {
    return explain(hashes, Map.of(), MediaRefs.Media.NONE, session);
  }

  /** As {@link #explain(RequestHashes)}, diverging workers matched with their own hashes. */
  public Pick explain(RequestHashes hashes, Map<WorkerId, RequestHashes> own) {
    return explain(hashes, own, MediaRefs.Media.NONE, null);
  }

  /**
   * As {@link #explain(RequestHashes)} with diverging workers' own hashes, images and {@code
   * session} (null: none): shows whether the pick would be session-bound, without counting the
   * binding as used.
   */
  public Pick explain(
      RequestHashes hashes,
      Map<WorkerId, RequestHashes> own,
      MediaRefs.Media media,
      SessionKey session) {
    List<Fleet.Member> members = fleet.routable(FULL_REQUEST_ROLES, Set.of());
    if (members.isEmpty()) {
      members = fleet.routable(Set.of(Role.PREFILL), Set.of());
    }
    if (members.isEmpty()) {
      return new Pick.Failed(noWorker(Set.of()));
    }
    return new Pick.Ok(
        choose(members, hashes, own, null, media, Side.CACHE, false, session, Set.of()));
  }

  /** Which half of a pick: the one whose cache decides (mixed, prefill), or decode. */
  private enum Side {
    CACHE,
    DECODE;

    SessionAffinity.Side session() {
      return this == CACHE ? SessionAffinity.Side.PREFILL : SessionAffinity.Side.DECODE;
    }
  }

  /**
   * The one selection step: match outside the lock (the expensive part), then load snapshot, choice
   * and booking as one step under it — concurrent picks on this replica each see the others'
   * bookings instead of all choosing the same least-loaded worker (a herd). A booked pick also
   * teaches the approx-prefix history that the winner now holds these blocks.
   *
   * <p>A decode pick with decode input demand attached also projects every decode target's input
   * demand inside the same critical section, reserves the request's tokens on the target taken (the
   * original one in shadow mode, the suggested one in on mode) and books that worker.
   *
   * @param input the request's input tokens for a decode pick (null for prefill and mixed picks)
   *     <p>Session affinity is asked first, under the same lock: a bound session's worker takes the
   *     pick (its choice still booked); selection — the policy, and for decode any demand-based
   *     choice — decides only a session's first target, its replacement, or a pick without a
   *     session.
   * @param book false for {@link #explain}: no booking, nothing learned
   * @param session the request's session, or null
   * @param exclude workers that already failed this request (a bound one is then replaced)
   */
  private RoutePlan choose(
      List<Fleet.Member> members,
      RequestHashes request,
      Map<WorkerId, RequestHashes> own,
      InputTokens input,
      MediaRefs.Media media,
      Side side,
      boolean book,
      SessionKey session,
      Set<WorkerId> exclude) {
    SessionAffinity sessionsNow = sessions;
    List<Fleet.Member> ordered = rotate(members);
    List<Worker> candidates = ordered.stream().map(Fleet.Member::asWorker).toList();
    // Load, booking and the approx-prefix history count blocks of the page size.
    long[] hashes = request.base();
    boolean overlapPolicy = policy instanceof RoutingPolicy.KvAware;
    // A multimodal request's text hits cannot be trusted (every image has the same placeholder):
    // its cache side uses image affinity, its decode side the load alone.
    boolean affinity = overlapPolicy && media.multimodal() && side == Side.CACHE;
    long[] imageKeys = affinity ? media.keys() : null;
    Overlap overlap;
    MatchResult match = null;
    if (affinity) {
      int blocks = Math.max(1, hashes.length + media.items() * imageBlocks);
      overlap =
          Overlap.multimodal(
              hashes.length,
              new ImageOverlap(media.items(), blocks, imageAffinity.held(candidates, imageKeys)));
    } else if (hashes.length == 0 || media.multimodal()) {
      overlap = Overlap.none(hashes.length);
    } else if (approxPrefix()) {
      overlap = approx.match(hashes, candidates);
    } else {
      match = index.match(request);
      overlap = own.isEmpty() ? Overlap.of(match) : withOwnHashes(match, own);
    }
    Decision d;
    Booking booking = null;
    Probe probe = null;
    DemandPick demandPick = null;
    DemandParts dm = input != null && policy instanceof RoutingPolicy.KvAware ? demand : null;
    SessionAffinity.Verdict verdict;
    int rank;
    if (book) {
      synchronized (pickLock) {
        verdict = sessionsNow.verdict(session, side.session(), ordered, fleet, exclude, false);
        d = select(verdict, candidates, overlap, ordered);
        rank = rank(verdict, match, d.winner());
        if (dm != null) {
          boolean bound = verdict instanceof SessionAffinity.Verdict.Bound;
          demandPick = demandPick(dm, ordered, d, rank, input, bound);
          if (!demandPick.actual().worker().equals(d.winner())) {
            d =
                new Decision(
                    demandPick.actual().worker(), d.requestBlocks(), d.scores(), d.images());
          }
          rank = demandPick.actual().rank();
        }
        sessionsNow.booked(session, side.session(), verdict, d.winner(), rank);
        booking = load.book(d.winner(), hashes, missedBlocks(d, overlap, hashes.length));
        if (affinity) {
          imageAffinity.booked(d.winner(), imageKeys);
        }
        if (overlapPolicy) {
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
      if (demandPick != null) {
        dm.meters().decided(demandPick);
      }
      if (media.multimodal()) {
        int held = affinity ? d.winnerScore().imageHits() : 0;
        if (affinity && metrics != null) {
          metrics.imageAffinity(media.items(), held);
        }
        log.info(
            "pick policy={} role={} picked={} mm_images={} mm_affinity_hits={}",
            policyConfig.name().wireName(),
            d.winnerScore().role().wireName(),
            d.winner().value(),
            media.items(),
            held);
      }
    } else {
      verdict = sessionsNow.verdict(session, side.session(), ordered, fleet, exclude, true);
      d = select(verdict, candidates, overlap, ordered);
      rank = rank(verdict, match, d.winner());
    }
    return new RoutePlan(fleet.member(d.winner()), d, booking, rank, probe, demandPick, verdict);
  }

  /**
   * The decode input-demand step, under the pick lock: every candidate's ranks projected, the
   * suggestion, the target taken (on: the suggestion; shadow: the original pick) and its
   * reservation.
   */
  private static DemandPick demandPick(
      DemandParts dm,
      List<Fleet.Member> ordered,
      Decision d,
      int originalRank,
      InputTokens input,
      boolean bound) {
    List<DemandSelection.Candidate> candidates = new ArrayList<>();
    DemandTarget original = null;
    for (Fleet.Member m : ordered) {
      WorkerId id = m.info().id();
      int dp = Math.max(1, m.info().dpSize());
      double originalLoad = score(d, id).loadTerm();
      for (int r = 0; r < dp; r++) {
        DemandTarget t = new DemandTarget(id, r, dp);
        DecodeDemand.Load l = dm.table().load(t);
        candidates.add(new DemandSelection.Candidate(t, l.tokens(), l.requests(), originalLoad));
        if (id.equals(d.winner()) && r == Math.min(originalRank, dp - 1)) {
          original = t;
        }
      }
    }
    long tokens = input.demand();
    DemandSelection.Choice c =
        DemandSelection.select(candidates, tokens, dm.config().requestWeight());
    // A bound session keeps its target: demand chooses only a session's first one or its
    // replacement (the suggestion is still made and counted).
    DemandTarget actual =
        dm.config().mode() == DecodeDemandConfig.Mode.ON && !bound ? c.suggested() : original;
    return new DemandPick(
        dm.config().mode(),
        input,
        c.projected(),
        original,
        c.suggested(),
        actual,
        dm.table().reserve(actual, tokens));
  }

  private static Decision.Score score(Decision d, WorkerId id) {
    for (Decision.Score s : d.scores()) {
      if (s.worker().equals(id)) {
        return s;
      }
    }
    throw new IllegalStateException("candidate " + id + " has no score");
  }

  /**
   * Decode input demand for every decode pick from now on ({@code config.mode()} shadow or on; off
   * detaches it). Kv-aware only: other policies ignore it.
   */
  public void attachDecodeDemand(
      DecodeDemandConfig config, DecodeDemand table, DecodeDemandMeters meters) {
    this.demand = config.books() ? new DemandParts(config, table, meters) : null;
  }

  /**
   * The prefill work a pick books: the blocks the winner misses (a multimodal request: its blocks
   * with the images' estimate less the blocks its image affinity stands for).
   */
  private static int missedBlocks(Decision d, Overlap overlap, int requestBlocks) {
    Decision.Score s = d.winnerScore();
    if (overlap.multimodal()) {
      return (int) Math.round(Math.max(0, overlap.images().blocks() - s.imageHitBlocks()));
    }
    return requestBlocks - s.hits();
  }

  /**
   * The selection step: the policy's decision, whose winner a bound session's worker replaces (the
   * scores stay, for explain). The seam for any other selection (decode demand): it chooses only
   * when {@code verdict} is not {@link SessionAffinity.Verdict.Bound}.
   */
  private Decision select(
      SessionAffinity.Verdict verdict,
      List<Worker> candidates,
      Overlap overlap,
      List<Fleet.Member> ordered) {
    Decision d = policy.select(candidates, overlap, snapshot(candidates), weights(ordered));
    if (verdict instanceof SessionAffinity.Verdict.Bound b && !b.worker().equals(d.winner())) {
      return new Decision(b.worker(), d.requestBlocks(), d.scores(), d.images());
    }
    return d;
  }

  /** A bound session's rank, else the winner's rank that caches the most (0 when single-rank). */
  private static int rank(SessionAffinity.Verdict verdict, MatchResult match, WorkerId winner) {
    if (verdict instanceof SessionAffinity.Verdict.Bound b && b.rank() >= 0) {
      return b.rank();
    }
    return match == null ? 0 : match.bestRank(winner);
  }

  /** Binds sessions to workers from now on (docs/routing.md, "Session affinity"). */
  public void attachSessionAffinity(SessionAffinity affinity) {
    this.sessions = affinity;
  }

  /** The session affinity in use ({@link SessionAffinity#off()} unless attached). */
  public SessionAffinity sessionAffinity() {
    return sessions;
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
