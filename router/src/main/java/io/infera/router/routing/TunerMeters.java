package io.infera.router.routing;

import io.infera.router.config.Role;
import io.infera.router.policy.tuner.OverlapTuning;
import io.infera.router.policy.tuner.WeightTuner;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Locale;

/**
 * {@code infera_overlap_weight{pool,role}} (the weight each pool settled on, tuned or fixed) and
 * {@code infera_overlap_tuner_decisions_total{pool,role,decision}} (the tuner's verdicts), one set
 * per pool and role as the router first routes to it.
 */
public final class TunerMeters implements MeterBinder {

  private final OverlapTuning tuning;

  public TunerMeters(OverlapTuning tuning) {
    this.tuning = tuning;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    tuning.listen((pool, role, tuner) -> register(registry, pool, role, tuner));
  }

  private void register(MeterRegistry registry, String pool, Role role, WeightTuner tuner) {
    if (tuner == null) {
      double w = tuning.fixedWeight(role);
      Gauge.builder("infera.overlap.weight", () -> w)
          .description("overlap weight of the pool and role (fixed or tuned)")
          .tag("pool", pool)
          .tag("role", role.wireName())
          .register(registry);
      return;
    }
    Gauge.builder("infera.overlap.weight", tuner, WeightTuner::centerWeight)
        .description("overlap weight of the pool and role (fixed or tuned)")
        .tag("pool", pool)
        .tag("role", role.wireName())
        .register(registry);
    for (WeightTuner.Verdict v : WeightTuner.Verdict.values()) {
      FunctionCounter.builder("infera.overlap.tuner.decisions", tuner, t -> (double) t.verdicts(v))
          .description("overlap-weight tuner verdicts: up, down, hold, merge (peers), discard")
          .tag("pool", pool)
          .tag("role", role.wireName())
          .tag("decision", v.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
  }
}
