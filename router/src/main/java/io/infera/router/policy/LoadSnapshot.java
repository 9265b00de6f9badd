package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import java.util.Map;

/**
 * Load of every candidate at one pick, plus a ticket unique to this pick (round-robin uses it).
 *
 * @param engine the engine-reported term per candidate (absent = {@link EngineTerm#UNKNOWN})
 */
public record LoadSnapshot(
    Map<WorkerId, WorkerLoad> loads, long ticket, Map<WorkerId, EngineTerm> engine) {

  public LoadSnapshot {
    loads = Map.copyOf(loads);
    engine = engine == null ? Map.of() : Map.copyOf(engine);
  }

  /** A snapshot without engine-reported load. */
  public LoadSnapshot(Map<WorkerId, WorkerLoad> loads, long ticket) {
    this(loads, ticket, Map.of());
  }

  public WorkerLoad of(WorkerId id) {
    return loads.getOrDefault(id, WorkerLoad.IDLE);
  }

  /** The engine term of {@code id}; {@link EngineTerm#UNKNOWN} when none. */
  public EngineTerm engine(WorkerId id) {
    return engine.getOrDefault(id, EngineTerm.UNKNOWN);
  }

  /** This snapshot with {@code terms} as its engine-reported load. */
  public LoadSnapshot withEngine(Map<WorkerId, EngineTerm> terms) {
    return new LoadSnapshot(loads, ticket, terms);
  }
}
