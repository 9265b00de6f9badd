package io.infera.sim.bench;

import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.Booking;
import io.infera.router.policy.Decision;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.Overlap;
import io.infera.router.policy.RoutingPolicy;
import io.infera.router.policy.Worker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The oracle arm's picker, shared by both drivers: the kv-aware cost model over every engine's true
 * cached prefix (instead of the router's index), with its own load accounting — the upper bound of
 * cache-aware routing on that fleet.
 *
 * <p>Workers are {@code w0 … w(n-1)}, the engines' positions in the fleet. Thread-safe as far as
 * {@link LoadTracker} is: concurrent picks may see each other's bookings or not, as the router's
 * do.
 */
public final class Oracle implements TrueCachePicker {

  /** The oracle's choice: the engine's position in the fleet and the load booked on it. */
  public record Pick(int worker, Booking booking) {}

  private final RoutingPolicy policy;
  private final LoadTracker load;
  private final List<Worker> workers;

  /**
   * The kv-aware policy with the fleet's overlap weight, over its {@code workers()} engines, its
   * load charges draining on {@code nanoTime} (the driver's clock: virtual time in the simulation).
   */
  public Oracle(FleetSpec fleet, LongSupplier nanoTime) {
    this.load = new LoadTracker(fleet.policy(PolicyName.KV_AWARE).load(), nanoTime);
    this.policy = RoutingPolicy.of(fleet.policy(PolicyName.KV_AWARE));
    List<Worker> w = new ArrayList<>(fleet.workers());
    for (int i = 0; i < fleet.workers(); i++) {
      w.add(new Worker(workerId(i), Role.MIXED));
    }
    this.workers = List.copyOf(w);
  }

  /** The id of the engine at {@code position} in the fleet, as the bench names workers. */
  public static WorkerId workerId(int position) {
    return WorkerId.of("w" + position);
  }

  /**
   * Picks the engine with the lowest kv-aware cost and books the request's blocks on it; tell the
   * booking the first token ({@link Booking#firstToken}) and release it when the request ends.
   *
   * @param hashes the request's router block hashes
   * @param cachedBlocks per engine position, how many leading blocks of the prompt its cache holds
   *     (values above {@code hashes.length} count as {@code hashes.length})
   */
  @Override
  public Pick pick(long[] hashes, int[] cachedBlocks) {
    if (cachedBlocks.length != workers.size()) {
      throw new IllegalArgumentException(
          "expected " + workers.size() + " cached-prefix counts, got " + cachedBlocks.length);
    }
    Map<WorkerId, Integer> hits = new HashMap<>();
    for (int i = 0; i < workers.size(); i++) {
      hits.put(workers.get(i).id(), Math.min(hashes.length, cachedBlocks[i]));
    }
    Decision d = policy.select(workers, new Overlap(hashes.length, hits), load.snapshot(workers));
    Booking booking = load.book(d.winner(), hashes, hashes.length - d.winnerScore().hits());
    return new Pick(position(d.winner()), booking);
  }

  private int position(WorkerId id) {
    for (int i = 0; i < workers.size(); i++) {
      if (workers.get(i).id().equals(id)) {
        return i;
      }
    }
    throw new IllegalStateException("the policy picked " + id + ", not a candidate");
  }
}
