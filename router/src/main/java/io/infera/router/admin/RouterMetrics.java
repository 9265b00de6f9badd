package io.infera.router.admin;

import io.infera.router.kv.DropReason;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.LoadTracker;
import io.infera.router.routing.CircuitBreaker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** The router's Prometheus metrics (names are Micrometer's; Prometheus adds _total/_seconds). */
public final class RouterMetrics {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Timer decision;
  private final Timer tokenize;
  private final DistributionSummary hitRatio;
  private final Counter zeroBlocks;
  private final Counter retries;
  private final Map<String, Counter> tokenizeFailures = new ConcurrentHashMap<>();
  private final Map<WorkerId, List<Meter>> workerMeters = new ConcurrentHashMap<>();
  // Micrometer holds function meters' state objects weakly: keep the suppliers alive here.
  private final Map<WorkerId, Supplier<Long>> appliedSuppliers = new ConcurrentHashMap<>();

  public RouterMetrics() {
    decision =
        Timer.builder("infera.routing.decision")
            .description("hash + match + score + pick, per request")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
    tokenize =
        Timer.builder("infera.tokenize")
            .description("request parsing, template rendering and tokenization")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
    hitRatio =
        DistributionSummary.builder("infera.routing.predicted.hit.ratio")
            .description("cached blocks / request blocks on the picked worker")
            .register(registry);
    zeroBlocks =
        Counter.builder("infera.routing.zero.blocks")
            .description("requests routed with no full block (short or untokenizable prompts)")
            .register(registry);
    retries =
        Counter.builder("infera.upstream.retries")
            .description(
                "attempts repeated on another worker after a failure before the first byte")
            .register(registry);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Prometheus text exposition. */
  public String scrape() {
    return registry.scrape();
  }

  public void request(String status, String worker, long durationNanos) {
    Counter.builder("infera.requests")
        .tags("status", status, "worker", worker == null ? "none" : worker)
        .register(registry)
        .increment();
    Timer.builder("infera.request.duration")
        .tags("status", status)
        .register(registry)
        .record(Duration.ofNanos(durationNanos));
  }

  public void firstByte(String worker, long nanos) {
    Timer.builder("infera.upstream.ttfb")
        .description("time to the worker's first response byte")
        .tags("worker", worker)
        .register(registry)
        .record(Duration.ofNanos(nanos));
  }

  public void decision(long nanos, int requestBlocks, int hitBlocks) {
    decision.record(Duration.ofNanos(nanos));
    if (requestBlocks == 0) {
      zeroBlocks.increment();
    } else {
      hitRatio.record((double) hitBlocks / requestBlocks);
    }
  }

  public void tokenized(long nanos) {
    tokenize.record(Duration.ofNanos(nanos));
  }

  public void tokenizeFailed(String reason) {
    tokenizeFailures
        .computeIfAbsent(
            reason,
            r ->
                Counter.builder("infera.tokenize.failures")
                    .description("requests routed by load because they could not be tokenized")
                    .tag("reason", r)
                    .register(registry))
        .increment();
  }

  public void retry() {
    retries.increment();
  }

  /** Index-wide counters, read from the index's stats on scrape. */
  public void bindIndex(PrefixIndex index) {
    Gauge.builder("infera.index.entries", index, i -> i.stats().entries())
        .description("(block, worker rank) entries in the index")
        .register(registry);
    Gauge.builder("infera.index.degraded.sources", index, i -> i.stats().degradedSources())
        .register(registry);
  }

  /** Per-worker gauges; removed again by {@link #unbindWorker}. */
  public void bindWorker(
      WorkerId worker,
      PrefixIndex index,
      LoadTracker load,
      CircuitBreaker breaker,
      Supplier<Long> appliedBatches) {
    List<Meter> meters = new ArrayList<>();
    Tags tags = Tags.of("worker", worker.value());
    appliedSuppliers.put(worker, appliedBatches);
    meters.add(
        Gauge.builder("infera.worker.active.blocks", load, l -> l.load(worker).activeBlocks())
            .tags(tags)
            .register(registry));
    meters.add(
        Gauge.builder("infera.worker.inflight", load, l -> l.load(worker).inFlight())
            .tags(tags)
            .register(registry));
    meters.add(
        Gauge.builder(
                "infera.worker.indexed.blocks",
                index,
                i -> i.stats().blocksPerWorker().getOrDefault(worker, 0L))
            .tags(tags)
            .register(registry));
    meters.add(
        Gauge.builder("infera.worker.breaker.state", breaker, b -> b.state().ordinal())
            .description("0 closed, 1 open, 2 half-open")
            .tags(tags)
            .register(registry));
    meters.add(
        FunctionCounter.builder("infera.kv.events.applied", appliedBatches, s -> s.get())
            .description("KV event batches applied, by source worker")
            .tags(tags)
            .register(registry));
    for (DropReason r : DropReason.values()) {
      meters.add(
          FunctionCounter.builder("infera.kv.events.dropped", index, i -> i.dropped(worker, r))
              .description("KV events (or blocks) not applied, by reason and source worker")
              .tags(tags)
              .tag("reason", r.label())
              .register(registry));
    }
    List<Meter> old = workerMeters.put(worker, meters);
    if (old != null) {
      old.forEach(registry::remove);
    }
  }

  public void unbindWorker(WorkerId worker) {
    appliedSuppliers.remove(worker);
    List<Meter> meters = workerMeters.remove(worker);
    if (meters != null) {
      meters.forEach(registry::remove);
    }
  }
}
