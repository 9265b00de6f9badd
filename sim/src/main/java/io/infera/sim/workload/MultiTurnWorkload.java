package io.infera.sim.workload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Chat conversations of several turns, the workload where the growing history is the prefix to
 * reuse: {@code conversations} sessions of {@code turns} turns each. A conversation's system prompt
 * is {@code sharedSystemTokens} tokens common to every conversation followed by {@code
 * systemTokens} tokens of its own (either part may be empty); every user message has {@code
 * userTokens} tokens and every answer at most {@code outputTokens}. The driver sends turn k+1 only
 * after turn k's answer arrived plus a think time of {@code thinkMs} (fixed, or exponential with
 * that mean). Conversations start according to {@code arrivals}; {@link Arrivals#spread} spreads
 * them over a window.
 *
 * <p>This is the workload behind pitfall 1 of docs/routing.md ("Pitfalls"): with zero in-flight
 * load between turns, a router without a recency term pins every conversation on one worker.
 */
public final class MultiTurnWorkload implements Workload {

  public static final String NAME = "multi-turn";

  private static final int SHARED_STREAM = 1;
  private static final int SYSTEM_STREAM = 2;
  private static final int USER_STREAM = 3;
  private static final int THINK_STREAM = 4;
  private static final int ARRIVAL_STREAM = 5;

  /** How think times are drawn. */
  public enum ThinkTime {
    /** Every pause is exactly {@code thinkMs}. */
    FIXED,
    /** Pauses are exponential with mean {@code thinkMs} (independent per turn). */
    EXPONENTIAL
  }

  /**
   * The knobs.
   *
   * @param conversations number of sessions, ≥ 1
   * @param turns turns per session, ≥ 1
   * @param systemTokens each conversation's own system prompt part, ≥ 0
   * @param sharedSystemTokens system prompt part common to all conversations (placed first), ≥ 0
   * @param userTokens every user message's length, ≥ 1
   * @param outputTokens every answer's length (the request's {@code max_tokens}), ≥ 1
   * @param thinkMs the pause before turns 2.., ms, ≥ 0
   * @param thinkTime fixed or exponential pauses
   * @param arrivals when conversations start
   * @param seed seeds every random choice
   */
  public record Config(
      int conversations,
      int turns,
      int systemTokens,
      int sharedSystemTokens,
      int userTokens,
      int outputTokens,
      double thinkMs,
      ThinkTime thinkTime,
      Arrivals arrivals,
      long seed) {

    public Config {
      Checks.positive("conversations", conversations);
      Checks.positive("turns", turns);
      Checks.atLeastZero("systemTokens", systemTokens);
      Checks.atLeastZero("sharedSystemTokens", sharedSystemTokens);
      Checks.positive("userTokens", userTokens);
      Checks.positive("outputTokens", outputTokens);
      Checks.finiteAtLeastZero("thinkMs", thinkMs);
      Objects.requireNonNull(thinkTime, "thinkTime");
      Objects.requireNonNull(arrivals, "arrivals");
      if ((long) conversations * turns > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "conversations × turns is too large: " + conversations + " × " + turns);
      }
    }
  }

  private final Config config;
  private final List<Session> sessions;
  private final WorkloadStats stats;

  public MultiTurnWorkload(Config config) {
    this.config = Objects.requireNonNull(config, "config");
    this.sessions = generate(config);
    long distinct =
        config.sharedSystemTokens()
            + (long) config.conversations()
                * (config.systemTokens() + (long) config.turns() * config.userTokens());
    this.stats = WorkloadStats.of(sessions, distinct);
  }

  public Config config() {
    return config;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<Session> sessions() {
    return sessions;
  }

  @Override
  public WorkloadStats stats() {
    return stats;
  }

  @Override
  public Map<String, Object> parameters() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("workload", NAME);
    p.put("conversations", config.conversations());
    p.put("turns", config.turns());
    p.put("system_tokens", config.systemTokens());
    p.put("shared_system_tokens", config.sharedSystemTokens());
    p.put("user_tokens", config.userTokens());
    p.put("output_tokens", config.outputTokens());
    p.put("think_ms", config.thinkMs());
    p.put("think_time", Checks.lower(config.thinkTime()));
    p.put("arrivals", Checks.lower(config.arrivals().process()));
    p.put("rate_per_sec", config.arrivals().ratePerSec());
    p.put("seed", config.seed());
    return p;
  }

  private static List<Session> generate(Config c) {
    long seed = c.seed();
    int[] shared = Vocabulary.random(Rng.stream(seed, SHARED_STREAM, 0), c.sharedSystemTokens());
    double[] starts =
        c.arrivals().startTimes(c.conversations(), Rng.stream(seed, ARRIVAL_STREAM, 0));
    List<Session> out = new ArrayList<>(c.conversations());
    for (int conv = 0; conv < c.conversations(); conv++) {
      int[] own = Vocabulary.tagged(Rng.stream(seed, SYSTEM_STREAM, conv), c.systemTokens(), conv);
      int[] system = new int[shared.length + own.length];
      System.arraycopy(shared, 0, system, 0, shared.length);
      System.arraycopy(own, 0, system, shared.length, own.length);
      Rng think = Rng.stream(seed, THINK_STREAM, conv);
      List<Turn> turns = new ArrayList<>(c.turns());
      for (int k = 0; k < c.turns(); k++) {
        long index = (long) conv * c.turns() + k;
        int[] user = Vocabulary.tagged(Rng.stream(seed, USER_STREAM, index), c.userTokens(), index);
        double pause = 0;
        if (k > 0) {
          pause = c.thinkTime() == ThinkTime.FIXED ? c.thinkMs() : think.exponential(c.thinkMs());
        }
        turns.add(Turn.of(user, c.outputTokens(), pause));
      }
      String id = "c" + conv;
      String group = c.sharedSystemTokens() > 0 ? "shared" : id;
      out.add(new Session(id, starts[conv], system, Vocabulary.text(system), turns, group));
    }
    return List.copyOf(out);
  }
}
