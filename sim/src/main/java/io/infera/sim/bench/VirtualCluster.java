package io.infera.sim.bench;

import io.infera.router.config.EngineLoadConfig;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.engineload.EngineLoadTable;
import io.infera.router.engineload.EngineStats;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.ApproxPrefixIndex;
import io.infera.router.policy.Booking;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.tuner.Probe;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.MediaRefs;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutePlan;
import io.infera.sim.bench.report.MultimodalStats;
import io.infera.sim.bench.report.RequestResult;
import io.infera.sim.engine.ImageTokens;
import io.infera.sim.kvcache.BlockManager;
import io.infera.sim.kvcache.KvEventListener;
import io.infera.sim.sched.EngineCore;
import io.infera.sim.sched.EngineEvent;
import io.infera.sim.sched.SimRequest;
import io.infera.sim.workload.Session;
import io.infera.sim.workload.Turn;
import io.infera.sim.workload.Workload;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * A deterministic discrete-event simulation of a fleet of simulated engines behind the production
 * routing code ({@link RequestRouter} over a {@link PrefixIndex} fed by the engines' KV events, the
 * {@link LoadTracker}, the policies). No threads, no sockets, virtual time: a benchmark arm that
 * takes minutes of simulated traffic runs in seconds, and the same inputs give the same numbers —
 * which is what the CI quality gate needs.
 */
public final class VirtualCluster {

  /**
   * What one run of an arm on a seed produced (either driver).
   *
   * @param clockSlip live runs: the engines' worst clock slip (see {@code SimEngine.clockSlip}); 0
   *     in virtual time
   */
  public record Run(
      List<RequestResult> results,
      double durationMs,
      double clockSlip,
      MultimodalStats multimodal) {
    public Run(List<RequestResult> results, double durationMs) {
      this(results, durationMs, 0);
    }

    public Run(List<RequestResult> results, double durationMs, double clockSlip) {
      this(results, durationMs, clockSlip, MultimodalStats.NONE);
    }
  }

  private sealed interface Ev {
    double at();
  }

  private record Arrive(double at, long order, SessionRun session) implements Ev {}

  private record StepDone(double at, long order, int worker, EngineCore.Step step) implements Ev {}

  private record Deliver(double at, long order, int worker, List<KvEvent> events) implements Ev {}

  /** The router starts a scrape of one engine's /metrics. */
  private record Scrape(double at, long order, int worker) implements Ev {}

  /**
   * A scrape's answer (the engine's state when it was read) reaches the router, which had {@code
   * inFlightAtStart} requests in flight there when it sent the scrape.
   */
  private record ScrapeDone(
      double at, long order, int worker, EngineStats stats, int inFlightAtStart) implements Ev {}

  /** A session's progress through its turns. */
  private static final class SessionRun {
    final Session session;
    final List<Integer> context = new ArrayList<>();
    // What the router tokenizes: the context without the image tokens the engine sees.
    final List<Integer> textContext = new ArrayList<>();
    final List<Long> images = new ArrayList<>();
    int turn;

    SessionRun(Session session) {
      this.session = session;
      for (int t : session.systemTokens()) {
        context.add(t);
        textContext.add(t);
      }
    }
  }

  /** One in-flight request. */
  private static final class Req {
    final String id;
    final SessionRun session;
    final int turn;
    final int worker;
    final double sentMs;
    final int[] prompt;
    final Booking booking;
    final Probe probe;
    boolean textOnly = true;
    final List<Integer> answer = new ArrayList<>();
    final List<Double> itl = new ArrayList<>();
    double firstTokenMs = -1;
    double lastTokenMs = -1;

    Req(
        String id,
        SessionRun s,
        int turn,
        int worker,
        double sentMs,
        int[] prompt,
        Booking b,
        Probe probe) {
      this.id = id;
      this.session = s;
      this.turn = turn;
      this.worker = worker;
      this.sentMs = sentMs;
      this.prompt = prompt;
      this.booking = b;
      this.probe = probe;
    }
  }

  /** Buffers one engine's KV events during a step, as router-side events. */
  private final class Outbox implements KvEventListener {
    final List<KvEvent> pending = new ArrayList<>();

    @Override
    public void blockStored(long[] hashes, Long parent, int[] tokens, String lora) {
      pending.add(
          new KvEvent.BlockStored(
              hashes.clone(),
              parent,
              tokens.clone(),
              spec.blockSize(),
              null,
              lora,
              "GPU",
              null,
              null,
              null));
    }

    @Override
    public void blockRemoved(long[] hashes) {
      pending.add(new KvEvent.BlockRemoved(hashes.clone(), "GPU", null));
    }

    @Override
    public void allCleared() {
      pending.add(new KvEvent.AllBlocksCleared());
    }
  }

  private final FleetSpec spec;
  private final Arm arm;
  private final int seed;
  private final EngineCore[] engines;
  private final Outbox[] outboxes;
  private final boolean[] busy;
  private final long[] seqs;
  private final WorkerId[] ids;
  private final PrefixIndex index;
  private final LoadTracker load;
  private final RequestRouter router;
  private final Oracle oracle;
  private final TrueCachePicker hitMax;
  private final BlockHasher hasher;
  private final PriorityQueue<Ev> queue =
      new PriorityQueue<>(
          (a, b) ->
              a.at() != b.at() ? Double.compare(a.at(), b.at()) : Long.compare(order(a), order(b)));
  private final Map<String, Req> inFlight = new HashMap<>();
  private final EngineLoadConfig engineLoadConfig;
  private final double scrapeDelayMs;
  private final double unroutedFraction;
  private final EngineLoadTable engineLoad;
  // Queued events other than scrapes: scrapes stop rescheduling once the traffic is done.
  private long pendingWork;
  private final List<RequestResult> results = new ArrayList<>();
  private double now;
  private long order;
  private long requestCounter;
  // Image affinity (multimodal workloads): which workers served each image key, and counts.
  private final Map<Long, Set<Integer>> servedBy = new HashMap<>();
  private long mmRequests;
  private long mmImages;
  private long mmRepeats;
  private long mmRepeatsWarm;
  private long mmAffinityHits;

  /**
   * @param seed varies the engines' hash seed (and is recorded in the results)
   */
  public VirtualCluster(FleetSpec spec, Arm arm, int seed) {
    this(spec, arm, seed, Options.DEFAULTS);
  }

  /**
   * What a run adds to the fleet and the router beyond {@link FleetSpec}.
   *
   * @param engineLoad the router's engine-reported load; when enabled, every engine is scraped each
   *     {@code intervalMs} (its running, waiting and KV usage at that instant)
   * @param scrapeDelayMs how long a scrape's answer takes to reach the router
   * @param unroutedFraction the fraction of requests that reach a random engine without this router
   *     (another router that shares no load, clients that bypass it): the router sees their KV
   *     events but never books them
   */
  public record Options(
      EngineLoadConfig engineLoad, double scrapeDelayMs, double unroutedFraction) {
    public static final Options DEFAULTS =
        new Options(EngineLoadConfig.DEFAULTS.withEnabled(false), 0, 0);

    public Options {
      if (!(scrapeDelayMs >= 0) || Double.isInfinite(scrapeDelayMs)) {
        throw new IllegalArgumentException("scrapeDelayMs must be finite and >= 0");
      }
      if (!(unroutedFraction >= 0 && unroutedFraction <= 1)) {
        throw new IllegalArgumentException("unroutedFraction must be in [0, 1]");
      }
    }
  }

  public VirtualCluster(FleetSpec spec, Arm arm, int seed, Options options) {
    if (arm.isPeer()) {
      throw new IllegalArgumentException(
          "the " + arm.name() + " arm is another process: it runs in the live bench only");
    }
    this.spec = spec;
    this.engineLoadConfig = options.engineLoad();
    this.scrapeDelayMs = options.scrapeDelayMs();
    this.unroutedFraction = options.unroutedFraction();
    this.engineLoad = new EngineLoadTable(engineLoadConfig, () -> (long) now);
    this.arm = arm;
    this.seed = seed;
    int n = spec.workers();
    engines = new EngineCore[n];
    outboxes = new Outbox[n];
    busy = new boolean[n];
    seqs = new long[n];
    ids = new WorkerId[n];
    // The load model's charges drain on virtual time.
    load = new LoadTracker(spec.policy(arm.policy()).load(), () -> (long) (now * 1e6));
    List<WorkerInfo> infos = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      outboxes[i] = new Outbox();
      engines[i] =
          new EngineCore(
              spec.engine(),
              new BlockManager(
                  spec.blocksPerWorker(), spec.blockSize(), 1000L * seed + i, outboxes[i]));
      ids[i] = Oracle.workerId(i);
      infos.add(
          new WorkerInfo(
              ids[i],
              "sim://w" + i,
              Role.MIXED,
              "sim",
              1,
              null,
              null,
              WorkerInfo.Readiness.READY,
              "sim"));
    }
    Fleet fleet = new Fleet(3, 1000, 30_000, () -> (long) now);
    fleet.apply(infos);
    index = new PrefixIndex(spec.blockSize());
    PolicyConfig pc = arm.policyConfig(spec);
    router =
        new RequestRouter(
            fleet,
            index,
            load,
            pc,
            new ApproxPrefixIndex(120_000, 1_000_000, () -> (long) now),
            null,
            new io.infera.router.policy.ImageAffinity(
                io.infera.router.config.MultimodalConfig.DEFAULT_AFFINITY_ENTRIES),
            spec.blockSize());
    if (engineLoadConfig.enabled()) {
      router.attachEngineLoad(this.engineLoad);
    }
    oracle = new Oracle(spec, () -> (long) (now * 1e6));
    hitMax = arm.isHitMax() ? new HitMaxPicker(spec, () -> (long) (now * 1e6)) : null;
    hasher = new BlockHasher(spec.blockSize());
  }

  private static long order(Ev e) {
    if (e instanceof Arrive a) {
      return a.order();
    }
    if (e instanceof StepDone s) {
      return s.order();
    }
    if (e instanceof Scrape s) {
      return s.order();
    }
    if (e instanceof ScrapeDone s) {
      return s.order();
    }
    return ((Deliver) e).order();
  }

  /** The router's engine-load table (tests read what the scrapes reported). */
  EngineLoadTable engineLoad() {
    return engineLoad;
  }

  /** Runs the whole workload to completion. */
  public Run run(Workload workload) {
    double first = Double.MAX_VALUE;
    for (Session s : workload.sessions()) {
      add(new Arrive(s.startMs(), order++, new SessionRun(s)));
      first = Math.min(first, s.startMs());
    }
    if (engineLoadConfig.enabled() && !arm.isOracle() && first != Double.MAX_VALUE) {
      // Staggered, as independent per-worker schedules would be.
      double interval = engineLoadConfig.intervalMs();
      for (int i = 0; i < engines.length; i++) {
        queue.add(new Scrape(first + interval * i / engines.length, order++, i));
      }
    }
    double last = first;
    while (!queue.isEmpty()) {
      Ev e = queue.poll();
      now = e.at();
      if (!(e instanceof Scrape) && !(e instanceof ScrapeDone)) {
        pendingWork--;
      }
      if (e instanceof Scrape sc) {
        EngineCore.Stats st = engines[sc.worker()].stats();
        EngineStats stats =
            new EngineStats(
                List.of(
                    new EngineStats.Rank(
                        0,
                        st.running(),
                        st.waiting(),
                        st.kvUsage(),
                        st.prefixQueryTokens(),
                        st.prefixHitTokens())),
                "vllm");
        queue.add(
            new ScrapeDone(
                now + scrapeDelayMs,
                order++,
                sc.worker(),
                stats,
                load.load(ids[sc.worker()]).inFlight()));
        if (pendingWork > 0 || !inFlight.isEmpty()) {
          queue.add(new Scrape(now + engineLoadConfig.intervalMs(), order++, sc.worker()));
        }
      } else if (e instanceof ScrapeDone sd) {
        WorkerId id = ids[sd.worker()];
        engineLoad.report(id, sd.stats(), Math.max(sd.inFlightAtStart(), load.load(id).inFlight()));
      } else if (e instanceof Arrive a) {
        arrive(a.session());
      } else if (e instanceof StepDone d) {
        stepDone(d.worker(), d.step());
        last = now;
      } else if (e instanceof Deliver d) {
        index.apply(
            ids[d.worker()], seqs[d.worker()]++, new EventBatch(now / 1000.0, d.events(), 0, 0));
      }
    }
    return new Run(
        results,
        Math.max(1, last - (first == Double.MAX_VALUE ? 0 : first)),
        0,
        new MultimodalStats(mmRequests, mmImages, mmRepeats, mmRepeatsWarm, mmAffinityHits));
  }

  /** The same for a request in every arm of a seed, whatever the order of arrivals. */
  private long unroutedHash(String session, int turn) {
    long x = session.hashCode() * 0x9E3779B97F4A7C15L + turn * 0xC2B2AE3D27D4EB4FL + seed;
    x ^= x >>> 33;
    x *= 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    x *= 0xC4CEB9FE1A85EC53L;
    return x ^ (x >>> 33);
  }

  private void add(Ev e) {
    pendingWork++;
    queue.add(e);
  }

  private void arrive(SessionRun s) {
    Turn turn = s.session.turns().get(s.turn);
    long[] newImages = turn.images();
    if (newImages.length > 0) {
      // The engine sees each image as its own tokens before the message (ImageTokens).
      int[] imageTokens =
          ImageTokens.withMedia(
              new MediaRefs.Media(
                  newImages.length, newImages, new int[MediaRefs.Unkeyed.values().length]),
              new int[0]);
      for (int t : imageTokens) {
        s.context.add(t);
      }
      for (long k : newImages) {
        s.images.add(k);
      }
    }
    for (int t : turn.userTokens()) {
      s.context.add(t);
      s.textContext.add(t);
    }
    int[] prompt = s.context.stream().mapToInt(Integer::intValue).toArray();
    long[] hashes =
        hasher.requestHashes(
            s.images.isEmpty() ? prompt : s.textContext.stream().mapToInt(i -> i).toArray(), 0);
    MediaRefs.Media media = MediaRefs.Media.NONE;
    if (!s.images.isEmpty()) {
      long[] keys = s.images.stream().mapToLong(Long::longValue).toArray();
      media = new MediaRefs.Media(keys.length, keys, new int[MediaRefs.Unkeyed.values().length]);
    }
    int worker;
    Booking booking;
    Probe probe = null;
    long h = unroutedHash(s.session.id(), s.turn);
    if (unroutedFraction > 0 && (h >>> 11) * 0x1.0p-53 < unroutedFraction) {
      // Traffic this router never sees: a random engine, nothing booked.
      worker = (int) Math.floorMod(h * 0x9E3779B97F4A7C15L >>> 17, (long) engines.length);
      booking = null;
    } else if (arm.usesTrueCaches()) {
      int[] cached = new int[engines.length];
      for (int i = 0; i < engines.length; i++) {
        cached[i] = engines[i].blocks().cachedPrefixBlocks(prompt, null);
      }
      // The oracle knows the engine's tokens, image tokens included.
      long[] trueHashes = media.multimodal() ? hasher.requestHashes(prompt, 0) : hashes;
      Oracle.Pick pick = (hitMax != null ? hitMax : oracle).pick(trueHashes, cached);
      worker = pick.worker();
      booking = pick.booking();
    } else {
      RequestRouter.Pick pick = router.pick(RequestHashes.of(hashes), media, Set.of(), 0);
      RoutePlan plan = ((RequestRouter.Pick.Ok) pick).plan();
      worker = Integer.parseInt(plan.worker().info().id().value().substring(1));
      booking = plan.booking();
      probe = plan.probe();
      if (media.multimodal()) {
        mmAffinityHits +=
            plan.decision().images() > 0 ? plan.decision().winnerScore().imageHits() : 0;
      }
    }
    if (media.multimodal() && booking != null) {
      mmRequests++;
      for (int i = 0; i < media.keyCount(); i++) {
        Set<Integer> warm = servedBy.computeIfAbsent(media.key(i), k -> new HashSet<>());
        mmImages++;
        if (!warm.isEmpty()) {
          mmRepeats++;
          if (warm.contains(worker)) {
            mmRepeatsWarm++;
          }
        }
        warm.add(worker);
      }
    }
    String id = "r" + (requestCounter++);
    try {
      engines[worker].submit(new SimRequest(id, prompt, turn.outputTokens(), null, now));
    } catch (IllegalArgumentException tooLong) {
      // The engine refuses what can never fit its cache (vLLM's max_model_len check): the
      // conversation ends here, as a client would stop after a 400.
      if (booking != null) {
        booking.release();
      }
      if (probe != null) {
        probe.abandon();
      }
      results.add(
          RequestResult.failed(
              arm.name(), seed, s.session.id(), s.turn, ids[worker].value(), now, "http_400"));
      return;
    }
    Req req = new Req(id, s, s.turn, worker, now, prompt, booking, probe);
    req.textOnly = !media.multimodal();
    inFlight.put(id, req);
    kick(worker);
  }

  private void kick(int worker) {
    if (busy[worker]) {
      return;
    }
    EngineCore.Step step = engines[worker].schedule(now);
    if (step != null) {
      busy[worker] = true;
      add(new StepDone(now + step.durationMs(), order++, worker, step));
    }
  }

  private void stepDone(int worker, EngineCore.Step step) {
    busy[worker] = false;
    List<EngineEvent> events = engines[worker].complete(step);
    Outbox box = outboxes[worker];
    if (!box.pending.isEmpty()) {
      add(new Deliver(now + spec.eventDelayMs(), order++, worker, List.copyOf(box.pending)));
      box.pending.clear();
    }
    for (EngineEvent e : events) {
      Req r = inFlight.get(e.requestId());
      if (r == null) {
        continue;
      }
      if (e instanceof EngineEvent.FirstToken) {
        r.firstTokenMs = now;
        if (r.booking != null) { // null for a request the router never saw (unrouted)
          r.booking.firstToken();
        }
        if (r.probe != null) {
          // The tuner's feedback; it learns from text-only requests alone.
          r.probe.firstToken(now - r.sentMs, r.textOnly);
        }
      } else if (e instanceof EngineEvent.Token t) {
        if (r.lastTokenMs >= 0) {
          r.itl.add(now - r.lastTokenMs);
        }
        r.lastTokenMs = now;
        r.answer.add(t.tokenId());
      } else if (e instanceof EngineEvent.Finished f) {
        finish(r, f);
      }
    }
    kick(worker);
  }

  private void finish(Req r, EngineEvent.Finished f) {
    inFlight.remove(r.id);
    if (r.booking != null) {
      r.booking.release();
    }
    if (r.probe != null) {
      r.probe.abandon(); // no-op after its first token
    }
    results.add(
        new RequestResult(
            arm.name(),
            seed,
            r.session.session.id(),
            r.turn,
            ids[r.worker].value(),
            r.sentMs,
            (r.firstTokenMs < 0 ? now : r.firstTokenMs) - r.sentMs,
            now - r.sentMs,
            List.copyOf(r.itl),
            f.promptTokens(),
            f.cachedTokens(),
            f.completionTokens(),
            !"length".equals(f.finishReason()) && !"stop".equals(f.finishReason()),
            "length".equals(f.finishReason()) || "stop".equals(f.finishReason())
                ? null
                : f.finishReason()));
    SessionRun s = r.session;
    s.context.addAll(r.answer);
    s.textContext.addAll(r.answer);
    s.turn++;
    if (s.turn < s.session.turns().size()) {
      double think = s.session.turns().get(s.turn).thinkMs();
      add(new Arrive(now + think, order++, s));
    }
  }
}
