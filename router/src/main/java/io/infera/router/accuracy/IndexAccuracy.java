package io.infera.router.accuracy;

import io.infera.router.config.RouterConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Compares, per answer, the blocks the router predicted cached (the winner's hits) with the blocks
 * the engine reported cached ({@code cached_tokens / pageSize}, rounded down), and keeps the
 * comparison's meters and sliding windows (one for the router, one per pool) behind the {@code
 * IndexAccurate} condition. Thread-safe: any event loop records; recording is a few array writes
 * under a lock held for no I/O.
 */
public final class IndexAccuracy implements MeterBinder {

  /** Bucket bounds of the error histograms, in blocks. */
  private static final double[] ERROR_BUCKETS = {1, 2, 4, 8, 16, 32, 64, 128, 256, 1024};

  private final RouterConfig.Index.Accuracy settings;
  private final IndexAccurateCondition.Thresholds thresholds;
  private final LongSupplier nanoClock;
  private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
  private final AccuracyWindow all;
  private final Map<String, Pool> pools = new ConcurrentHashMap<>();

  public IndexAccuracy(RouterConfig.Index.Accuracy settings, LongSupplier nanoClock) {
    this.settings = settings;
    this.thresholds =
        new IndexAccurateCondition.Thresholds(
            settings.minSamples(), settings.minPrecision(), settings.minRecall());
    this.nanoClock = nanoClock;
    this.all = window();
    Gauge.builder("infera.index.accuracy.condition", this, a -> a.condition().status().ordinal())
        .description("IndexAccurate: 0 True, 1 False, 2 Unknown")
        .strongReference(true)
        .register(meters);
  }

  private AccuracyWindow window() {
    return new AccuracyWindow(settings.window(), settings.windowSeconds() * 1_000_000_000L);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    meters.add(registry);
  }

  /**
   * One answer of a worker in {@code pool}.
   *
   * @param predictedBlocks the decision's hits for the worker that answered (page-size blocks)
   * @param requestBlocks full page-size blocks in the request
   * @param pageSize tokens per block
   */
  public void record(
      String pool, int predictedBlocks, int requestBlocks, int pageSize, CachedTokens reported) {
    Pool p = pools.computeIfAbsent(pool, this::pool);
    long now = nanoClock.getAsLong();
    if (reported instanceof CachedTokens.Reported r) {
      int rep = (int) Math.min(requestBlocks, r.tokens() / pageSize);
      int pred = Math.max(0, Math.min(requestBlocks, predictedBlocks));
      int hit = Math.min(pred, rep);
      p.predicted.increment(pred);
      p.reported.increment(rep);
      p.predictedHit.increment(hit);
      int diff = pred - rep;
      (diff > 0 ? p.over : diff < 0 ? p.under : p.exact).record(Math.abs(diff));
      synchronized (this) {
        all.known(pred, rep, now);
        p.window.known(pred, rep, now);
      }
    } else {
      p.unknown.get(((CachedTokens.Unknown) reported).why()).increment();
      synchronized (this) {
        all.unknown(now);
        p.window.unknown(now);
      }
    }
  }

  /** The condition over the router's window, now. */
  public IndexAccurateCondition condition() {
    AccuracyWindow.Stats s;
    synchronized (this) {
      s = all.stats(nanoClock.getAsLong());
    }
    return IndexAccurateCondition.evaluate(s, thresholds);
  }

  /** The {@code index_accurate} object of {@code GET /v1/admin/status}. */
  public Map<String, Object> status() {
    long now = nanoClock.getAsLong();
    AccuracyWindow.Stats total;
    Map<String, AccuracyWindow.Stats> byPool = new TreeMap<>();
    synchronized (this) {
      total = all.stats(now);
      for (Map.Entry<String, Pool> e : pools.entrySet()) {
        byPool.put(e.getKey(), e.getValue().window.stats(now));
      }
    }
    Map<String, Object> out =
        new LinkedHashMap<>(IndexAccurateCondition.evaluate(total, thresholds).fields());
    out.putAll(numbers(total));
    Map<String, Object> poolsOut = new LinkedHashMap<>();
    for (Map.Entry<String, AccuracyWindow.Stats> e : byPool.entrySet()) {
      poolsOut.put(e.getKey(), numbers(e.getValue()));
    }
    out.put("pools", poolsOut);
    return out;
  }

  private static Map<String, Object> numbers(AccuracyWindow.Stats s) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("samples", s.known());
    out.put("unreported", s.unknown());
    out.put("precision", s.precision());
    out.put("recall", s.recall());
    out.put("mean_abs_error_blocks", s.meanAbsError());
    return out;
  }

  private Pool pool(String name) {
    return new Pool(name);
  }

  /** One pool's meters and window. */
  private final class Pool {
    final AccuracyWindow window = window();
    final Counter predicted;
    final Counter reported;
    final Counter predictedHit;
    final DistributionSummary over;
    final DistributionSummary under;
    final DistributionSummary exact;
    final Map<CachedTokens.Why, Counter> unknown = new EnumMap<>(CachedTokens.Why.class);

    Pool(String name) {
      predicted = blocks(name, "predicted");
      reported = blocks(name, "reported");
      predictedHit = blocks(name, "predicted_hit");
      over = error(name, "over");
      under = error(name, "under");
      exact = error(name, "none");
      for (CachedTokens.Why w : CachedTokens.Why.values()) {
        unknown.put(
            w,
            Counter.builder("infera.index.accuracy.unreported")
                .description("answers that did not report cached tokens, by why")
                .tags("pool", name, "reason", w.label())
                .register(meters));
      }
      Gauge.builder("infera.index.accuracy.precision", this, p -> orNaN(p.stats().precision()))
          .description("predicted-hit blocks the engines reported cached, over the window")
          .tags("pool", name)
          .strongReference(true)
          .register(meters);
      Gauge.builder("infera.index.accuracy.recall", this, p -> orNaN(p.stats().recall()))
          .description("engine-reported cached blocks the router predicted, over the window")
          .tags("pool", name)
          .strongReference(true)
          .register(meters);
    }

    AccuracyWindow.Stats stats() {
      synchronized (IndexAccuracy.this) {
        return window.stats(nanoClock.getAsLong());
      }
    }

    private Counter blocks(String pool, String kind) {
      return Counter.builder("infera.index.accuracy.blocks")
          .description(
              "blocks in answers that reported cached tokens: predicted cached, reported cached,"
                  + " and both (min of the two per answer)")
          .tags("pool", pool, "kind", kind)
          .register(meters);
    }

    private DistributionSummary error(String pool, String direction) {
      return DistributionSummary.builder("infera.index.accuracy.error.blocks")
          .description(
              "|predicted - reported| cached blocks per answer; direction over: the router"
                  + " predicted more, under: fewer, none: equal")
          .tags("pool", pool, "direction", direction)
          .serviceLevelObjectives(ERROR_BUCKETS)
          .register(meters);
    }
  }

  private static double orNaN(Double d) {
    return d == null ? Double.NaN : d;
  }
}
