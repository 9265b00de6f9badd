package io.infera.router.routing;

import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.Worker;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The workers the router knows and whether each may take a request: discovery readiness ({@code
 * READY}, not {@code DRAINING}), health (static backend probes) and its circuit breaker. Updated by
 * discovery and health threads, read by request threads; readers see immutable snapshots.
 */
public final class Fleet {

  /** One worker's live state. */
  public static final class Member {
    private final WorkerInfo info;
    private final CircuitBreaker breaker;
    private volatile boolean healthy = true;

    Member(WorkerInfo info, CircuitBreaker breaker) {
      this.info = info;
      this.breaker = breaker;
    }

    public WorkerInfo info() {
      return info;
    }

    public CircuitBreaker breaker() {
      return breaker;
    }

    public boolean healthy() {
      return healthy;
    }

    /**
     * Whether this worker may take a new request now.
     *
     * @param exclude workers that already failed the request being routed
     */
    public Eligibility eligibility(Set<WorkerId> exclude) {
      if (exclude.contains(info.id())) {
        return Eligibility.EXCLUDED;
      }
      if (info.readiness() != WorkerInfo.Readiness.READY) {
        return Eligibility.DRAINING;
      }
      if (!healthy) {
        return Eligibility.UNHEALTHY;
      }
      return breaker.isAvailable() ? Eligibility.ELIGIBLE : Eligibility.BREAKER_OPEN;
    }

    public Worker asWorker() {
      return new Worker(info.id(), info.role());
    }

    Member withInfo(WorkerInfo newer) {
      Member m = new Member(newer, breaker);
      m.healthy = healthy;
      return m;
    }
  }

  /** Result of applying a discovery snapshot. */
  public record Change(List<WorkerInfo> added, List<WorkerId> removed, List<WorkerInfo> current) {}

  private final int breakerFailures;
  private final long breakerCooldownMs;
  private final long breakerMaxCooldownMs;
  private final LongSupplier clockMs;

  // One snapshot: the members by id and in id order (sorted once per discovery change, not per
  // pick).
  private record View(Map<WorkerId, Member> byId, List<Member> sorted) {}

  private volatile View view = new View(Map.of(), List.of());
  private volatile boolean synced;

  public Fleet(
      int breakerFailures,
      long breakerCooldownMs,
      long breakerMaxCooldownMs,
      LongSupplier clockMs) {
    this.breakerFailures = breakerFailures;
    this.breakerCooldownMs = breakerCooldownMs;
    this.breakerMaxCooldownMs = breakerMaxCooldownMs;
    this.clockMs = clockMs;
  }

  /** Replaces the worker list with a discovery snapshot; returns what changed. */
  public synchronized Change apply(List<WorkerInfo> snapshot) {
    Map<WorkerId, Member> next = new LinkedHashMap<>();
    List<WorkerInfo> added = new ArrayList<>();
    List<WorkerInfo> sorted = new ArrayList<>(snapshot);
    sorted.sort(Comparator.comparing(WorkerInfo::id));
    Map<WorkerId, Member> members = view.byId();
    for (WorkerInfo w : sorted) {
      Member old = members.get(w.id());
      if (old == null) {
        added.add(w);
        next.put(
            w.id(),
            new Member(
                w,
                new CircuitBreaker(
                    breakerFailures, breakerCooldownMs, breakerMaxCooldownMs, clockMs)));
      } else {
        next.put(w.id(), old.info().equals(w) ? old : old.withInfo(w));
      }
    }
    List<WorkerId> removed = new ArrayList<>();
    for (WorkerId id : members.keySet()) {
      if (!next.containsKey(id)) {
        removed.add(id);
      }
    }
    view = new View(Map.copyOf(next), List.copyOf(next.values()));
    synced = true;
    return new Change(added, removed, sorted);
  }

  /** True after the first discovery snapshot. */
  public boolean synced() {
    return synced;
  }

  public Member member(WorkerId id) {
    return view.byId().get(id);
  }

  /** Every member in id order (an immutable snapshot). */
  public Collection<Member> members() {
    return view.sorted();
  }

  /** Marks a worker healthy or not (static backend health checks). */
  public void setHealthy(WorkerId id, boolean healthy) {
    Member m = view.byId().get(id);
    if (m != null) {
      m.healthy = healthy;
    }
  }

  /**
   * Workers that may take a new request of the given roles, in stable (id) order: those whose
   * {@link Member#eligibility} is {@code ELIGIBLE}; when there are none but some are only {@code
   * BREAKER_OPEN}, those ("route anyway": a breaker must not take a whole role out).
   */
  public List<Member> routable(Set<Role> roles, Set<WorkerId> exclude) {
    List<Member> eligible = new ArrayList<>();
    List<Member> breakerOpen = new ArrayList<>();
    for (Member m : members()) {
      if (!roles.contains(m.info().role())) {
        continue;
      }
      switch (m.eligibility(exclude)) {
        case ELIGIBLE -> eligible.add(m);
        case BREAKER_OPEN -> breakerOpen.add(m);
        case EXCLUDED, DRAINING, UNHEALTHY -> {}
      }
    }
    return eligible.isEmpty() ? breakerOpen : eligible;
  }

  /** Roles present among discovered workers (for "no worker in pool X" messages). */
  public Set<Role> roles() {
    Set<Role> out = new HashSet<>();
    for (Member m : view.sorted()) {
      out.add(m.info().role());
    }
    return out;
  }
}
