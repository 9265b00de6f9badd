package io.infera.router.routing;

import io.infera.router.kv.WorkerId;
import io.infera.router.policy.DecodeDemand;
import io.infera.router.policy.DemandPick;
import io.infera.router.policy.DemandTarget;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decode input demand's meters, named exactly as the router this one replaces names them (its
 * {@code infera_router_} names, an exception to this router's own {@code infera_<what>} names):
 * {@code infera_router_decode_demand_tokens{target}} and {@code
 * infera_router_decode_demand_requests{target}} (gauges per decode target, from its first
 * reservation until its worker leaves discovery) and {@code
 * infera_router_decode_demand_decisions_total{mode,input,agrees}}. Thread-safe.
 */
public final class DecodeDemandMeters {

  private final MeterRegistry meters;
  private final DecodeDemand demand;
  private final Map<DemandTarget, List<Meter>> gauges = new ConcurrentHashMap<>();
  private final Map<String, Counter> decisions = new ConcurrentHashMap<>();

  /**
   * @param registry where the meters live (removed from it when their worker goes)
   */
  public DecodeDemandMeters(DecodeDemand demand, MeterRegistry registry) {
    this.demand = demand;
    this.meters = registry;
  }

  /** One decode pick's decision: counted, and its target's gauges exist from now on. */
  public void decided(DemandPick pick) {
    String key = pick.mode().wire() + '|' + pick.input().label() + '|' + pick.agrees();
    decisions
        .computeIfAbsent(
            key,
            k ->
                Counter.builder("infera.router.decode.demand.decisions")
                    .description(
                        "decode picks judged by input demand, by mode, input (exact or estimated)"
                            + " and whether the suggestion matched the original policy")
                    .tag("mode", pick.mode().wire())
                    .tag("input", pick.input().label())
                    .tag("agrees", Boolean.toString(pick.agrees()))
                    .register(meters))
        .increment();
    gauges.computeIfAbsent(pick.actual(), this::register);
  }

  private List<Meter> register(DemandTarget t) {
    return List.of(
        Gauge.builder("infera.router.decode.demand.tokens", demand, d -> d.load(t).tokens())
            .description("input tokens (x n) of the requests in flight on the decode target")
            .tag("target", t.label())
            .register(meters),
        Gauge.builder("infera.router.decode.demand.requests", demand, d -> d.load(t).requests())
            .description("requests in flight on the decode target, as decode input demand counts")
            .tag("target", t.label())
            .register(meters));
  }

  /** The worker left discovery: its targets' gauges go. */
  public void forget(WorkerId worker) {
    gauges
        .entrySet()
        .removeIf(
            e -> {
              if (!e.getKey().worker().equals(worker)) {
                return false;
              }
              e.getValue().forEach(meters::remove);
              return true;
            });
  }
}
