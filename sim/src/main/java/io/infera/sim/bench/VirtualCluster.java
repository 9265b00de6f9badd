package io.infera.sim.bench;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.ApproxPrefixIndex;
import io.infera.router.policy.Booking;
import io.infera.router.policy.LoadTracker;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutePlan;
import io.infera.sim.bench.report.RequestResult;
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
  public record Run(List<RequestResult> results, double durationMs, double clockSlip) {
    public Run(List<RequestResult> results, double durationMs) {
      this(results, durationMs, 0);
    }
  }

  private sealed interface Ev {
    double at();
  }

  private record Arrive(double at, long order, SessionRun session) implements Ev {}

  private record StepDone(double at, long order, int worker, EngineCore.Step step) implements Ev {}

  private record Deliver(double at, long order, int worker, List<KvEvent> events) implements Ev {}

  /** A session's progress through its turns. */
  private static final class SessionRun {
    final Session session;
    final List<Integer> context = new ArrayList<>();
    int turn;

    SessionRun(Session session) {
      this.session = session;
      for (int t : session.systemTokens()) {
        context.add(t);
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
    final List<Integer> answer = new ArrayList<>();
    final List<Double> itl = new ArrayList<>();
    double firstTokenMs = -1;
    double lastTokenMs = -1;

    Req(String id, SessionRun s, int turn, int worker, double sentMs, int[] prompt, Booking b) {
      this.id = id;
      this.session = s;
      this.turn = turn;
      this.worker = worker;
      this.sentMs = sentMs;
      this.prompt = prompt;
      this.booking = b;
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
  private final BlockHasher hasher;
  private final PriorityQueue<Ev> queue =
      new PriorityQueue<>(
          (a, b) ->
              a.at() != b.at() ? Double.compare(a.at(), b.at()) : Long.compare(order(a), order(b)));
  private final Map<String, Req> inFlight = new HashMap<>();
  private final List<RequestResult> results = new ArrayList<>();
  private double now;
  private long order;
  private long requestCounter;

  /**
   * @param seed varies the engines' hash seed (and is recorded in the results)
   */
  public VirtualCluster(FleetSpec spec, Arm arm, int seed) {
    this.spec = spec;
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
    PolicyConfig pc = spec.policy(arm.policy());
    router =
        new RequestRouter(
            fleet,
            index,
            load,
            pc,
            new ApproxPrefixIndex(120_000, 1_000_000, () -> (long) now),
            null);
    oracle = new Oracle(spec, () -> (long) (now * 1e6));
    hasher = new BlockHasher(spec.blockSize());
  }

  private static long order(Ev e) {
    if (e instanceof Arrive a) {
      return a.order();
    }
    if (e instanceof StepDone s) {
      return s.order();
    }
    return ((Deliver) e).order();
  }

  /** Runs the whole workload to completion. */
  public Run run(Workload workload) {
    double first = Double.MAX_VALUE;
    for (Session s : workload.sessions()) {
      queue.add(new Arrive(s.startMs(), order++, new SessionRun(s)));
      first = Math.min(first, s.startMs());
    }
    double last = first;
    while (!queue.isEmpty()) {
      Ev e = queue.poll();
      now = e.at();
      if (e instanceof Arrive a) {
        arrive(a.session());
      } else if (e instanceof StepDone d) {
        stepDone(d.worker(), d.step());
        last = now;
      } else if (e instanceof Deliver d) {
        index.apply(
            ids[d.worker()], seqs[d.worker()]++, new EventBatch(now / 1000.0, d.events(), 0, 0));
      }
    }
    return new Run(results, Math.max(1, last - (first == Double.MAX_VALUE ? 0 : first)));
  }

  private void arrive(SessionRun s) {
    Turn turn = s.session.turns().get(s.turn);
    for (int t : turn.userTokens()) {
      s.context.add(t);
    }
    int[] prompt = s.context.stream().mapToInt(Integer::intValue).toArray();
    long[] hashes = hasher.requestHashes(prompt, 0);
    int worker;
    Booking booking;
    if (arm.isOracle()) {
      int[] cached = new int[engines.length];
      for (int i = 0; i < engines.length; i++) {
        cached[i] = engines[i].blocks().cachedPrefixBlocks(prompt, null);
      }
      Oracle.Pick pick = oracle.pick(hashes, cached);
      worker = pick.worker();
      booking = pick.booking();
    } else {
      RequestRouter.Pick pick = router.pick(hashes, Set.of(), 0);
      RoutePlan plan = ((RequestRouter.Pick.Ok) pick).plan();
      worker = Integer.parseInt(plan.worker().info().id().value().substring(1));
      booking = plan.booking();
    }
    String id = "r" + (requestCounter++);
    try {
      engines[worker].submit(new SimRequest(id, prompt, turn.outputTokens(), null, now));
    } catch (IllegalArgumentException tooLong) {
      // The engine refuses what can never fit its cache (vLLM's max_model_len check): the
      // conversation ends here, as a client would stop after a 400.
      booking.release();
      results.add(
          RequestResult.failed(
              arm.name(), seed, s.session.id(), s.turn, ids[worker].value(), now, "http_400"));
      return;
    }
    inFlight.put(id, new Req(id, s, s.turn, worker, now, prompt, booking));
    kick(worker);
  }

  private void kick(int worker) {
    if (busy[worker]) {
      return;
    }
    EngineCore.Step step = engines[worker].schedule(now);
    if (step != null) {
      busy[worker] = true;
      queue.add(new StepDone(now + step.durationMs(), order++, worker, step));
    }
  }

  private void stepDone(int worker, EngineCore.Step step) {
    busy[worker] = false;
    List<EngineEvent> events = engines[worker].complete(step);
    Outbox box = outboxes[worker];
    if (!box.pending.isEmpty()) {
      queue.add(new Deliver(now + spec.eventDelayMs(), order++, worker, List.copyOf(box.pending)));
      box.pending.clear();
    }
    for (EngineEvent e : events) {
      Req r = inFlight.get(e.requestId());
      if (r == null) {
        continue;
      }
      if (e instanceof EngineEvent.FirstToken) {
        r.firstTokenMs = now;
        r.booking.firstToken();
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
    r.booking.release();
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
    s.turn++;
    if (s.turn < s.session.turns().size()) {
      double think = s.session.turns().get(s.turn).thinkMs();
      queue.add(new Arrive(now + think, order++, s));
    }
  }
}
