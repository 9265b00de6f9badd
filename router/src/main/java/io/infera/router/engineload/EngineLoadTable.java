package io.infera.router.engineload;

import io.infera.router.config.EngineLoadConfig;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.EngineTerm;
import io.infera.router.policy.LoadSnapshot;
import io.infera.router.policy.Worker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The latest engine snapshot per worker and what picks booked there, turned into each candidate's
 * {@link EngineTerm} at a pick. A snapshot older than {@code maxStalenessMs}, or replaced by a
 * failed scrape, is unknown. Also keeps, per worker, the engine's prefix-cache hit ratio (from its
 * counters, since this router first read them) next to the ratio the router predicted for the picks
 * it sent there (docs/routing.md, "Engine-reported load"). Thread-safe: scrapes report on the
 * scraper's threads, picks read on request threads without locks.
 */
public final class EngineLoadTable {

  /** Weight of one new booking in a worker's mean booked blocks per request. */
  static final double MEAN_ALPHA = 0.05;

  private final EngineLoadConfig config;
  private final LongSupplier nowMs;
  private final Map<WorkerId, State> states = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> skipped = new ConcurrentHashMap<>();
  private volatile double fleetMeanBlocks = Double.NaN;
  private MeterRegistry registry;
  private io.micrometer.core.instrument.Timer scrapeTimer;

  /** What {@code /v1/workers} shows of a worker's engine-reported load. */
  public record View(
      EngineTerm term,
      EngineStats stats,
      long ageMs,
      ScrapeOutcome lastOutcome,
      double engineHitRatio,
      double predictedHitRatio,
      double meanBookedBlocks) {}

  public EngineLoadTable(EngineLoadConfig config, LongSupplier nowMs) {
    this.config = config;
    this.nowMs = nowMs;
  }

  public EngineLoadConfig config() {
    return config;
  }

  /**
   * A scrape of {@code worker} read {@code stats} now.
   *
   * @param routerInFlight the requests the router had in flight on the worker while the scrape ran
   *     (the larger of its counts when the scrape started and when it ended)
   */
  public void report(WorkerId worker, EngineStats stats, int routerInFlight) {
    State s = state(worker);
    s.report(stats, routerInFlight, nowMs.getAsLong());
  }

  /** A scrape of {@code worker} failed: its snapshot is unknown until the next good one. */
  public void failed(WorkerId worker, ScrapeOutcome outcome) {
    state(worker).fail(outcome);
  }

  /** A scrape took {@code nanos}, whatever its outcome. */
  public void scrapeTook(long nanos) {
    io.micrometer.core.instrument.Timer t = scrapeTimer;
    if (t != null) {
      t.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
  }

  /** Counts lines a parse skipped, by reason ({@code malformed}, {@code duplicate}, ...). */
  public void skipped(PromText.Result r) {
    add("malformed", r.malformed());
    add("duplicate", r.duplicates());
    add("too_long", r.longLines());
    add("over_limit", r.dropped());
  }

  private void add(String reason, int n) {
    if (n > 0) {
      skipped.computeIfAbsent(reason, k -> new AtomicLong()).addAndGet(n);
    }
  }

  /**
   * A pick booked {@code blocks} request blocks on {@code worker}, of which the router predicted
   * {@code hits} cached.
   */
  public void booked(WorkerId worker, int blocks, int hits) {
    State s = state(worker);
    s.booked(blocks, hits);
    double f = fleetMeanBlocks;
    fleetMeanBlocks = Double.isNaN(f) ? blocks : f + MEAN_ALPHA * (blocks - f);
  }

  /** Forgets a worker that left discovery (and removes its meters). */
  public void forget(WorkerId worker) {
    State s = states.remove(worker);
    if (s != null && registry != null) {
      s.meters.forEach(registry::remove);
    }
  }

  /** {@code snapshot} with every candidate's engine term. */
  public LoadSnapshot withTerms(List<Worker> candidates, LoadSnapshot snapshot) {
    if (!config.enabled()) {
      return snapshot;
    }
    long now = nowMs.getAsLong();
    Map<WorkerId, EngineTerm> terms = new HashMap<>(candidates.size() * 2);
    for (Worker w : candidates) {
      State s = states.get(w.id());
      EngineTerm t = s == null ? EngineTerm.UNKNOWN : s.term(now);
      if (t.known()) {
        terms.put(w.id(), t);
      }
    }
    return terms.isEmpty() ? snapshot : snapshot.withEngine(terms);
  }

  /** The engine term of {@code worker} now. */
  public EngineTerm term(WorkerId worker) {
    State s = states.get(worker);
    return s == null || !config.enabled() ? EngineTerm.UNKNOWN : s.term(nowMs.getAsLong());
  }

  /** What {@code /v1/workers} shows for {@code worker}. */
  public View view(WorkerId worker) {
    State s = states.get(worker);
    if (s == null) {
      return new View(EngineTerm.UNKNOWN, null, -1, null, Double.NaN, Double.NaN, Double.NaN);
    }
    long now = nowMs.getAsLong();
    return s.view(now);
  }

  /** Scrapes of {@code worker} that ended with {@code outcome}. */
  public long scrapes(WorkerId worker, ScrapeOutcome outcome) {
    State s = states.get(worker);
    return s == null ? 0 : s.outcomes.get(outcome).get();
  }

  /** Registers the fleet-wide meters; per-worker ones follow as workers are reported. */
  public void bindTo(MeterRegistry registry) {
    this.registry = registry;
    this.scrapeTimer =
        io.micrometer.core.instrument.Timer.builder("infera.engine.scrape.duration")
            .description(
                "time from sending a /metrics scrape to its snapshot (or failure); a snapshot is"
                    + " at most this plus intervalMs old when replaced")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
    for (String reason : List.of("malformed", "duplicate", "too_long", "over_limit")) {
      FunctionCounter.builder(
              "infera.engine.scrape.lines.skipped",
              skipped,
              m -> m.getOrDefault(reason, new AtomicLong()).get())
          .description("lines of engine /metrics bodies skipped, by reason")
          .tag("reason", reason)
          .register(registry);
    }
    states.forEach((id, s) -> s.bind(id));
  }

  private State state(WorkerId worker) {
    return states.computeIfAbsent(
        worker,
        id -> {
          State s = new State();
          if (registry != null) {
            s.bind(id);
          }
          return s;
        });
  }

  private double meanBlocks(State s) {
    double m = s.meanBlocks;
    if (!Double.isNaN(m)) {
      return m;
    }
    double f = fleetMeanBlocks;
    return Double.isNaN(f) ? 1 : f;
  }

  /** One worker's snapshot and booking statistics. */
  private final class State {
    final Map<ScrapeOutcome, AtomicLong> outcomes = new EnumMap<>(ScrapeOutcome.class);
    final List<Meter> meters = new ArrayList<>();
    volatile EngineStats stats;
    volatile int routerInFlight;
    volatile long at = -1;
    volatile ScrapeOutcome last;
    volatile double meanBlocks = Double.NaN;
    // Prefix counters: the engine's since we first read them (resets folded in), and ours.
    double engineQueries;
    double engineHits;
    double lastQueries = Double.NaN;
    double lastHits = Double.NaN;
    long predictedHits;
    long predictedBlocks;

    State() {
      for (ScrapeOutcome o : ScrapeOutcome.values()) {
        outcomes.put(o, new AtomicLong());
      }
    }

    synchronized void report(EngineStats st, int inFlight, long now) {
      routerInFlight = inFlight;
      stats = st;
      at = now;
      last = ScrapeOutcome.OK;
      outcomes.get(ScrapeOutcome.OK).incrementAndGet();
      double q = st.prefixQueries();
      double h = st.prefixHits();
      if (!Double.isNaN(q) && !Double.isNaN(h)) {
        if (!Double.isNaN(lastQueries) && q >= lastQueries && h >= lastHits) {
          engineQueries += q - lastQueries;
          engineHits += h - lastHits;
        }
        // A counter that went down is an engine restart: count from its new value on.
        lastQueries = q;
        lastHits = h;
      }
    }

    void fail(ScrapeOutcome o) {
      stats = null;
      at = -1;
      last = o;
      outcomes.get(o).incrementAndGet();
    }

    synchronized void booked(int blocks, int hits) {
      double m = meanBlocks;
      meanBlocks = Double.isNaN(m) ? blocks : m + MEAN_ALPHA * (blocks - m);
      predictedBlocks += Math.max(0, blocks);
      predictedHits += Math.max(0, Math.min(hits, blocks));
    }

    EngineTerm term(long now) {
      EngineStats st = stats;
      long t = at;
      if (st == null || t < 0) {
        return EngineTerm.UNKNOWN;
      }
      long age = Math.max(0, now - t);
      if (age > config.maxStalenessMs()) {
        return EngineTerm.UNKNOWN;
      }
      return EngineTerm.of(
          st.requests(), st.kvUsage(), routerInFlight, meanBlocks(this), config.weight(), age);
    }

    synchronized View view(long now) {
      EngineTerm term = term(now);
      return new View(
          term,
          stats,
          at < 0 ? -1 : Math.max(0, now - at),
          last,
          engineHitRatio(),
          predictedHitRatio(),
          meanBlocks);
    }

    synchronized double engineHitRatio() {
      return engineQueries > 0 ? engineHits / engineQueries : Double.NaN;
    }

    synchronized double predictedHitRatio() {
      return predictedBlocks > 0 ? (double) predictedHits / predictedBlocks : Double.NaN;
    }

    double ageSeconds() {
      long t = at;
      return t < 0 ? Double.NaN : Math.max(0, nowMs.getAsLong() - t) / 1000.0;
    }

    void bind(WorkerId id) {
      Tags tags = Tags.of("worker", id.value());
      for (ScrapeOutcome o : ScrapeOutcome.values()) {
        meters.add(
            FunctionCounter.builder("infera.engine.scrapes", outcomes.get(o), AtomicLong::get)
                .description("scrapes of a worker's /metrics, by result")
                .tags(tags)
                .tag("result", o.label())
                .register(registry));
      }
      meters.add(
          Gauge.builder("infera.engine.load.age.seconds", this, State::ageSeconds)
              .description("age of the worker's engine snapshot (NaN when none)")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder("infera.engine.load.blocks", this, s -> s.term(nowMs.getAsLong()).blocks())
              .description("the engine term a pick would add now (blocks; 0 when unknown)")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder("infera.engine.requests", this, s -> requests(s.stats))
              .description("running + waiting requests the engine reports (NaN when unknown)")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder("infera.engine.kv.usage", this, s -> kv(s.stats))
              .description("the engine's KV-cache usage 0..1 (NaN when unknown)")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder("infera.worker.engine.prefix.hit.ratio", this, State::engineHitRatio)
              .description("the engine's prefix-cache hit ratio since this router first read it")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder("infera.worker.predicted.prefix.hit.ratio", this, State::predictedHitRatio)
              .description("predicted cached blocks / request blocks of picks sent to the worker")
              .tags(tags)
              .register(registry));
    }
  }

  private static double requests(EngineStats s) {
    return s == null ? Double.NaN : s.requests();
  }

  private static double kv(EngineStats s) {
    return s == null ? Double.NaN : s.kvUsage();
  }
}
