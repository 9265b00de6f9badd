package io.infera.sim.bench;

import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.Booking;
import io.infera.router.policy.LoadSnapshot;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.Worker;
import io.infera.router.policy.WorkerLoad;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code hit-max} reference arm: the engine whose true cache holds the most leading blocks of
 * the prompt, ties by the least load ({@link WorkerLoad#total}, then requests in flight, then the
 * earlier engine). It maximizes hits and ignores queueing, so it bounds what pure affinity
 * achieves; the kv-aware cost trades the two.
 *
 * <p>Load is booked with the router's {@link LoadTracker}, as the {@link Oracle} does. Thread-safe
 * as far as that is.
 */
public final class HitMaxPicker implements TrueCachePicker {

  private final LoadTracker load;
  private final List<Worker> workers;

  /**
   * Over {@code fleet.workers()} engines, named as the bench names them.
   *
   * @param nanoTime the clock booked charges drain on (the simulated one in virtual time)
   */
  public HitMaxPicker(FleetSpec fleet, java.util.function.LongSupplier nanoTime) {
    this.load = new LoadTracker(fleet.policy(PolicyName.KV_AWARE).load(), nanoTime);
    List<Worker> w = new ArrayList<>(fleet.workers());
    for (int i = 0; i < fleet.workers(); i++) {
      w.add(new Worker(Oracle.workerId(i), Role.MIXED));
    }
    this.workers = List.copyOf(w);
  }

  @Override
  public Oracle.Pick pick(long[] hashes, int[] cachedBlocks) {
    if (cachedBlocks.length != workers.size()) {
      throw new IllegalArgumentException(
          "expected " + workers.size() + " cached-prefix counts, got " + cachedBlocks.length);
    }
    LoadSnapshot snapshot = load.snapshot(workers);
    int best = -1;
    int bestHits = -1;
    WorkerLoad bestLoad = null;
    for (int i = 0; i < workers.size(); i++) {
      int hits = Math.max(0, Math.min(hashes.length, cachedBlocks[i]));
      WorkerLoad l = snapshot.of(workers.get(i).id());
      if (hits > bestHits || (hits == bestHits && lighter(l, bestLoad))) {
        best = i;
        bestHits = hits;
        bestLoad = l;
      }
    }
    WorkerId winner = workers.get(best).id();
    Booking booking = load.book(winner, hashes, hashes.length - bestHits);
    return new Oracle.Pick(best, booking);
  }

  private static boolean lighter(WorkerLoad a, WorkerLoad b) {
    if (a.total() != b.total()) {
      return a.total() < b.total();
    }
    return a.inFlight() < b.inFlight();
  }
}
