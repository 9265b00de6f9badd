package io.infera.router.runtime;

import io.infera.router.kv.DropReason;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.LoadTracker;
import io.infera.router.routing.CircuitBreaker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Per-worker gauges and counters (load, indexed blocks, breaker, KV events applied / dropped; the
 * event lag is the ingest's own), registered when discovery adds a worker and removed when it goes,
 * so a departed worker's series disappear. Thread-safe.
 */
final class WorkerMeters {

  private final MeterRegistry registry;
  private final PrefixIndex index;
  private final LoadTracker load;
  private final Map<WorkerId, List<Meter>> meters = new ConcurrentHashMap<>();
  // Micrometer holds function meters' state objects weakly: keep the suppliers alive here.
  private final Map<WorkerId, Object> states = new ConcurrentHashMap<>();

  WorkerMeters(MeterRegistry registry, PrefixIndex index, LoadTracker load) {
    this.registry = registry;
    this.index = index;
    this.load = load;
  }

  /**
   * Registers {@code worker}'s meters (replacing any it had).
   *
   * @param appliedBatches KV-event batches applied from it so far
   */
  void bind(WorkerId worker, CircuitBreaker breaker, Supplier<Long> appliedBatches) {
    List<Meter> list = new ArrayList<>();
    Tags tags = Tags.of("worker", worker.value());
    states.put(worker, appliedBatches);
    list.add(
        Gauge.builder("infera.worker.active.blocks", load, l -> l.load(worker).activeBlocks())
            .tags(tags)
            .register(registry));
    list.add(
        Gauge.builder("infera.worker.inflight", load, l -> l.load(worker).inFlight())
            .tags(tags)
            .register(registry));
    list.add(
        Gauge.builder("infera.worker.prefill.blocks.per.second", load, l -> l.prefillRate(worker))
            .description("the prefill rate the load model assumes for the worker")
            .tags(tags)
            .register(registry));
    list.add(
        Gauge.builder(
                "infera.worker.indexed.blocks",
                index,
                i -> i.stats().blocksPerWorker().getOrDefault(worker, 0L))
            .tags(tags)
            .register(registry));
    list.add(
        Gauge.builder("infera.worker.breaker.state", breaker, b -> b.state().ordinal())
            .description("0 closed, 1 open, 2 half-open")
            .tags(tags)
            .register(registry));
    list.add(
        FunctionCounter.builder("infera.kv.events.applied", appliedBatches, s -> s.get())
            .description("KV event batches applied, by source worker")
            .tags(tags)
            .register(registry));
    list.add(
        FunctionCounter.builder("infera.kv.resets", index, i -> i.resets(worker))
            .description(
                "resets that wiped a non-empty view of the worker (refused ones are drops)")
            .tags(tags)
            .register(registry));
    for (DropReason r : DropReason.values()) {
      list.add(
          FunctionCounter.builder("infera.kv.events.dropped", index, i -> i.dropped(worker, r))
              .description("KV events (or blocks) not applied, by reason and source worker")
              .tags(tags)
              .tag("reason", r.label())
              .register(registry));
    }
    List<Meter> old = meters.put(worker, list);
    if (old != null) {
      old.forEach(registry::remove);
    }
  }

  /** Removes {@code worker}'s meters. */
  void unbind(WorkerId worker) {
    states.remove(worker);
    List<Meter> list = meters.remove(worker);
    if (list != null) {
      list.forEach(registry::remove);
    }
  }
}
