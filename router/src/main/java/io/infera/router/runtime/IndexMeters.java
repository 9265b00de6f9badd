package io.infera.router.runtime;

import io.infera.router.kv.PrefixIndex;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The prefix index's fleet-wide gauges, read from its stats on scrape (the index is plain Java).
 */
final class IndexMeters implements MeterBinder {

  private final PrefixIndex index;

  IndexMeters(PrefixIndex index) {
    this.index = index;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("infera.index.entries", index, i -> i.stats().entries())
        .description("(block, worker rank) entries in the index")
        .register(registry);
    Gauge.builder("infera.index.degraded.sources", index, i -> i.stats().degradedSources())
        .register(registry);
    Gauge.builder("infera.index.held.blocks", index, PrefixIndex::heldBlocks)
        .description("blocks held by all views, capped by index.maxBlocks")
        .register(registry);
    Gauge.builder("infera.index.max.blocks", index, i -> i.limits().maxBlocks())
        .description("index.maxBlocks: stores beyond it are dropped as index_full")
        .register(registry);
  }
}
