package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import java.util.Map;

/** Load of every candidate at one pick, plus a ticket unique to this pick (round-robin uses it). */
public record LoadSnapshot(Map<WorkerId, WorkerLoad> loads, long ticket) {

  public LoadSnapshot {
    loads = Map.copyOf(loads);
  }

  public WorkerLoad of(WorkerId id) {
    return loads.getOrDefault(id, WorkerLoad.IDLE);
  }
}
