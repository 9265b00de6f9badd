package io.infera.sim.workload;

import java.util.List;
import java.util.Map;

/** A deterministic (seeded) list of sessions for the simulator and the benchmark. */
public interface Workload {

  /** Short kind name, e.g. {@code shared-prefix}; used in reports. */
  String name();

  /**
   * The sessions, ordered by {@link Session#startMs} (ties keep generation order). Equal
   * configurations give equal lists; the list is unmodifiable and may materialise each session on
   * access (traces), so fetch each element once where memory matters.
   */
  List<Session> sessions();

  /** Totals over {@link #sessions()}: sessions, requests, prompt tokens, distinct prefix tokens. */
  WorkloadStats stats();

  /** The knobs that produced this workload, for reports (key → number or string). */
  default Map<String, Object> parameters() {
    return Map.of();
  }
}
