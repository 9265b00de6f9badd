package io.infera.router.routing;

import io.infera.router.config.SessionAffinityConfig;
import io.infera.router.config.SessionAffinityConfig.Mode;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.SessionBinding;
import io.infera.router.policy.SessionBindings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Session affinity's part of a pick (docs/routing.md, "Session affinity"): before selection it says
 * whether a session's bound worker takes this pick ({@link Verdict.Bound}) or selection must choose
 * (a first pick, or the replacement of a bound worker that left discovery, drains, is unhealthy,
 * failed this request or has its breaker open); after the booking it records the choice. Holds the
 * replica's {@link SessionBindings} and binds {@code infera.session.affinity.*}. The request router
 * calls it under its pick lock, so a replica's concurrent first picks of one session agree.
 */
public final class SessionAffinity implements MeterBinder {

  /** Which half of a pick: the prefill side (a mixed or prefill worker) or the decode worker. */
  public enum Side {
    PREFILL,
    DECODE;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Why a bound worker is replaced: it is not in discovery, or its {@link Eligibility}. */
  public enum Replacement {
    GONE,
    EXCLUDED,
    DRAINING,
    UNHEALTHY,
    BREAKER_OPEN;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** What affinity says about one side of one pick. */
  public sealed interface Verdict {
    /** Not session-bound: no key, affinity off, or this side is not bound in this mode. */
    record Unbound() implements Verdict {}

    /** The session's bound worker takes the pick (selection is skipped; booking is not). */
    record Bound(WorkerId worker, int rank) implements Verdict {}

    /** The session has no target on this side yet: selection chooses its first one. */
    record First() implements Verdict {}

    /** The bound worker cannot take it: selection chooses its replacement. */
    record Replaced(WorkerId previous, Replacement reason) implements Verdict {}

    /** Whether the pick is made for a session (bound, first or replacement). */
    default boolean sessionBound() {
      return !(this instanceof Unbound);
    }

    /** The word in logs and the explain document. */
    default String label() {
      if (this instanceof Bound) {
        return "bound";
      }
      if (this instanceof First) {
        return "first";
      }
      return this instanceof Replaced ? "replaced" : "none";
    }
  }

  static final Verdict UNBOUND = new Verdict.Unbound();
  private static final Verdict FIRST = new Verdict.First();

  private final SessionAffinityConfig config;
  private final SessionBindings bindings;
  private final long replica;
  private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
  private final Map<Side, Counter> hits = new EnumMap<>(Side.class);
  private final Map<Side, Counter> misses = new EnumMap<>(Side.class);
  private final Map<Side, Map<Replacement, Counter>> replacements = new EnumMap<>(Side.class);
  private final Map<SessionKey.Extraction, Counter> keys =
      new EnumMap<>(SessionKey.Extraction.class);

  /**
   * @param replica this replica's id, the origin of the bindings it makes
   * @param clockMs the bindings' idle-time clock
   */
  public SessionAffinity(SessionAffinityConfig config, long replica, LongSupplier clockMs) {
    this.config = config;
    this.replica = replica;
    this.bindings = new SessionBindings(config.maxSessions(), config.ttlMs(), clockMs);
    for (Side s : Side.values()) {
      hits.put(
          s,
          counter(
              "infera.session.affinity.hits", "picks that went to the session's bound worker", s));
      misses.put(
          s,
          counter(
              "infera.session.affinity.misses",
              "session picks with no bound worker yet (a first pick)",
              s));
      Map<Replacement, Counter> r = new EnumMap<>(Replacement.class);
      for (Replacement why : Replacement.values()) {
        r.put(
            why,
            Counter.builder("infera.session.affinity.replacements")
                .description("bound workers replaced, by why they could not take the pick")
                .tag("side", s.label())
                .tag("reason", why.label())
                .register(meters));
      }
      replacements.put(s, r);
    }
    for (SessionKey.Extraction e : SessionKey.Extraction.values()) {
      if (e != SessionKey.Extraction.ABSENT) {
        keys.put(
            e,
            Counter.builder("infera.session.affinity.keys")
                .description("requests with a session source, by whether its key was used")
                .tag("result", e.label())
                .register(meters));
      }
    }
    Gauge.builder("infera.session.affinity.bindings", bindings, SessionBindings::size)
        .description("session bindings this replica keeps")
        .register(meters);
    FunctionCounter.builder(
            "infera.session.affinity.evictions", bindings, b -> b.stats().evictedCapacity())
        .description("bindings dropped, by cause (capacity: least recently used; ttl: idle)")
        .tag("cause", "capacity")
        .register(meters);
    FunctionCounter.builder(
            "infera.session.affinity.evictions", bindings, b -> b.stats().evictedTtl())
        .description("bindings dropped, by cause (capacity: least recently used; ttl: idle)")
        .tag("cause", "ttl")
        .register(meters);
  }

  private Counter counter(String name, String description, Side s) {
    return Counter.builder(name).description(description).tag("side", s.label()).register(meters);
  }

  /** Affinity off: every verdict is {@link Verdict.Unbound}. */
  public static SessionAffinity off() {
    return new SessionAffinity(SessionAffinityConfig.DEFAULTS, 0, System::currentTimeMillis);
  }

  public SessionAffinityConfig config() {
    return config;
  }

  /** The table (load sharing announces and merges through it). */
  public SessionBindings bindings() {
    return bindings;
  }

  /**
   * The session key of a request, counting an unusable one; null when it has none or affinity is
   * off.
   *
   * @param headerValue the configured header's value, or null
   */
  public SessionKey key(String headerValue, Map<String, Object> body) {
    return key(headerValue, body, true);
  }

  /** As {@link #key(String, Map)}; {@code count} false for explain, which changes no metric. */
  public SessionKey key(String headerValue, Map<String, Object> body, boolean count) {
    if (!config.enabled()) {
      return null;
    }
    SessionKey.Extracted e =
        SessionKey.of(config.header() == null ? null : headerValue, body, config.maxKeyBytes());
    Counter c = count ? keys.get(e.outcome()) : null;
    if (c != null) {
      c.increment();
    }
    return e.key();
  }

  /**
   * What the session's binding says about this side of a pick; the binding counts as used unless
   * {@code peek} (explain).
   *
   * @param candidates the routable workers of the side, as selection gets them
   * @param exclude the workers that already failed this request
   */
  Verdict verdict(
      SessionKey key,
      Side side,
      List<Fleet.Member> candidates,
      Fleet fleet,
      Set<WorkerId> exclude,
      boolean peek) {
    if (key == null || !bound(side)) {
      return UNBOUND;
    }
    SessionBinding b = peek ? bindings.peek(key.hash()) : bindings.use(key.hash());
    WorkerId target = b == null ? null : side == Side.PREFILL ? b.first() : b.decode();
    if (target == null) {
      return FIRST;
    }
    Fleet.Member m = fleet.member(target);
    if (m == null) {
      return new Verdict.Replaced(target, Replacement.GONE);
    }
    Eligibility e = m.eligibility(exclude);
    if (e == Eligibility.ELIGIBLE) {
      boolean candidate = false;
      for (Fleet.Member c : candidates) {
        if (c.info().id().equals(target)) {
          candidate = true;
          break;
        }
      }
      if (!candidate) {
        return new Verdict.Replaced(target, Replacement.GONE); // no longer of this role
      }
      int rank = side == Side.PREFILL ? b.firstRank() : b.decodeRank();
      return new Verdict.Bound(target, rank < m.info().dpSize() ? rank : SessionBinding.NO_RANK);
    }
    return new Verdict.Replaced(
        target,
        switch (e) {
          case EXCLUDED -> Replacement.EXCLUDED;
          case DRAINING -> Replacement.DRAINING;
          case UNHEALTHY -> Replacement.UNHEALTHY;
          case BREAKER_OPEN, ELIGIBLE -> Replacement.BREAKER_OPEN;
        });
  }

  /**
   * Records a booked pick: counts a hit, or binds the session's first target or its replacement
   * (announced to the other replicas when shared).
   *
   * @param rank the data-parallel rank the pick sends to
   */
  void booked(SessionKey key, Side side, Verdict v, WorkerId winner, int rank) {
    if (v instanceof Verdict.Bound) {
      hits.get(side).increment();
    } else if (v instanceof Verdict.First) {
      misses.get(side).increment();
      bind(key, side, winner, rank);
    } else if (v instanceof Verdict.Replaced r) {
      replacements.get(side).get(r.reason()).increment();
      bind(key, side, winner, rank);
    }
  }

  private void bind(SessionKey key, Side side, WorkerId winner, int rank) {
    // The prefill-side rank is bound only under both; under prefill the cache chooses it.
    int boundRank = config.mode() == Mode.BOTH ? rank : SessionBinding.NO_RANK;
    SessionBinding old = bindings.peek(key.hash());
    SessionBinding next;
    if (old == null) {
      next =
          side == Side.PREFILL
              ? new SessionBinding(winner, boundRank, null, SessionBinding.NO_RANK, 1, replica)
              : new SessionBinding(null, SessionBinding.NO_RANK, winner, boundRank, 1, replica);
    } else {
      next =
          side == Side.PREFILL
              ? old.withFirst(winner, boundRank, replica)
              : old.withDecode(winner, boundRank, replica);
    }
    bindings.put(key.hash(), next);
  }

  /** Whether picks of {@code side} are bound in this mode. */
  public boolean bound(Side side) {
    return switch (config.mode()) {
      case OFF -> false;
      case PREFILL -> side == Side.PREFILL;
      case BOTH -> true;
    };
  }

  /** The {@code session_affinity} object of the admin status. */
  public Map<String, Object> status() {
    SessionBindings.Stats s = bindings.stats();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", config.mode().wireName());
    out.put("header", config.header());
    out.put("bindings", s.size());
    out.put("max_sessions", config.maxSessions());
    out.put("ttl_ms", config.ttlMs());
    out.put("evicted_capacity", s.evictedCapacity());
    out.put("evicted_ttl", s.evictedTtl());
    return out;
  }

  /** Binds {@code infera.session.affinity.*}. */
  @Override
  public void bindTo(MeterRegistry registry) {
    meters.add(registry);
  }
}
