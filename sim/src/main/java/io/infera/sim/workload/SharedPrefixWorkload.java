package io.infera.sim.workload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Groups of single-turn prompts that share a system prompt, the workload where cache-aware routing
 * pays most: each of {@code groups} groups has a system prompt of {@code systemTokens} tokens, and
 * each of its {@code promptsPerGroup} prompts adds a unique question of {@code questionTokens}
 * tokens. Arrivals (open loop) interleave the groups in a seeded random order.
 *
 * <p>Routing quality shows when the system prompts together exceed one worker's cache but fit the
 * fleet's: then only a router that keeps each group on "its" workers avoids recomputing them. Size
 * that with {@link #forWorkingSet}.
 *
 * <p>Determinism: content is drawn per piece (system prompt g, question i) from its own seeded
 * stream, so changing the arrival process or the number of groups leaves the other pieces as they
 * were. Different groups' system prompts differ in their first token (below 2,000 groups), and so
 * do questions (below 2,000 prompts).
 */
public final class SharedPrefixWorkload implements Workload {

  public static final String NAME = "shared-prefix";

  private static final int SYSTEM_STREAM = 1;
  private static final int QUESTION_STREAM = 2;
  private static final int ORDER_STREAM = 3;
  private static final int ARRIVAL_STREAM = 4;

  /**
   * The knobs.
   *
   * @param groups number of distinct system prompts, ≥ 1
   * @param promptsPerGroup prompts sharing each system prompt, ≥ 1
   * @param systemTokens length of each system prompt, ≥ 0
   * @param questionTokens length of each prompt's unique question (the user message), ≥ 1
   * @param outputTokens answer length of every prompt, ≥ 1
   * @param arrivals when the prompts are sent
   * @param seed seeds every random choice
   */
  public record Config(
      int groups,
      int promptsPerGroup,
      int systemTokens,
      int questionTokens,
      int outputTokens,
      Arrivals arrivals,
      long seed) {

    public Config {
      Checks.positive("groups", groups);
      Checks.positive("promptsPerGroup", promptsPerGroup);
      Checks.atLeastZero("systemTokens", systemTokens);
      Checks.positive("questionTokens", questionTokens);
      Checks.positive("outputTokens", outputTokens);
      Objects.requireNonNull(arrivals, "arrivals");
      if ((long) groups * promptsPerGroup > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "groups × promptsPerGroup is too large: " + groups + " × " + promptsPerGroup);
      }
    }
  }

  private final Config config;
  private final List<Session> sessions;
  private final WorkloadStats stats;

  public SharedPrefixWorkload(Config config) {
    this.config = Objects.requireNonNull(config, "config");
    this.sessions = generate(config);
    long distinct =
        (long) config.groups() * config.systemTokens()
            + (long) sessions.size() * config.questionTokens();
    this.stats = WorkloadStats.of(sessions, distinct);
  }

  /**
   * The number of groups whose system prompts together take {@code fractionOfFleetKv} of the
   * fleet's KV cache: {@code round(fraction × workers × blocksPerWorker / ⌊systemTokens /
   * blockSize⌋)} (halves round up), at least 1. Only full blocks count (a partial block is never
   * shared: it also holds the question). A fraction above {@code 1 / workers} no longer fits one
   * worker, so routing matters; above 1 nothing can hold it all.
   *
   * @throws IllegalArgumentException when the system prompt is shorter than one block or an
   *     argument is out of range
   */
  public static int groupsForWorkingSet(
      double fractionOfFleetKv, int workers, int blocksPerWorker, int blockSize, int systemTokens) {
    if (!(fractionOfFleetKv > 0) || Double.isInfinite(fractionOfFleetKv)) {
      throw new IllegalArgumentException(
          "fractionOfFleetKv must be finite and > 0, got " + fractionOfFleetKv);
    }
    Checks.positive("workers", workers);
    Checks.positive("blocksPerWorker", blocksPerWorker);
    Checks.positive("blockSize", blockSize);
    int blocksPerSystem = systemTokens / blockSize;
    if (blocksPerSystem < 1) {
      throw new IllegalArgumentException(
          "systemTokens ("
              + systemTokens
              + ") must span at least one block of "
              + blockSize
              + " tokens to be cacheable");
    }
    double fleetBlocks = (double) workers * blocksPerWorker;
    double groups = Math.floor(fractionOfFleetKv * fleetBlocks / blocksPerSystem + 0.5);
    if (groups > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("working set needs too many groups: " + groups);
    }
    return Math.max(1, (int) groups);
  }

  /**
   * A workload whose distinct system prompts fill {@code fractionOfFleetKv} of the fleet's KV
   * blocks; {@code groups} comes from {@link #groupsForWorkingSet}, the other knobs are as in
   * {@link Config}. The fraction actually reached (groups are whole) is {@link
   * #workingSetFraction}.
   */
  public static SharedPrefixWorkload forWorkingSet(
      double fractionOfFleetKv,
      int workers,
      int blocksPerWorker,
      int blockSize,
      int promptsPerGroup,
      int systemTokens,
      int questionTokens,
      int outputTokens,
      Arrivals arrivals,
      long seed) {
    int groups =
        groupsForWorkingSet(fractionOfFleetKv, workers, blocksPerWorker, blockSize, systemTokens);
    return new SharedPrefixWorkload(
        new Config(
            groups, promptsPerGroup, systemTokens, questionTokens, outputTokens, arrivals, seed));
  }

  /** The share of a fleet's KV blocks that this workload's distinct system prompts occupy. */
  public double workingSetFraction(int workers, int blocksPerWorker, int blockSize) {
    Checks.positive("workers", workers);
    Checks.positive("blocksPerWorker", blocksPerWorker);
    Checks.positive("blockSize", blockSize);
    long blocks = (long) config.groups() * (config.systemTokens() / blockSize);
    return blocks / ((double) workers * blocksPerWorker);
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
    p.put("groups", config.groups());
    p.put("prompts_per_group", config.promptsPerGroup());
    p.put("system_tokens", config.systemTokens());
    p.put("question_tokens", config.questionTokens());
    p.put("output_tokens", config.outputTokens());
    p.put("arrivals", Checks.lower(config.arrivals().process()));
    p.put("rate_per_sec", config.arrivals().ratePerSec());
    p.put("seed", config.seed());
    return p;
  }

  private static List<Session> generate(Config c) {
    int[][] systems = new int[c.groups()][];
    String[] systemTexts = new String[c.groups()];
    for (int g = 0; g < c.groups(); g++) {
      systems[g] = Vocabulary.tagged(Rng.stream(c.seed(), SYSTEM_STREAM, g), c.systemTokens(), g);
      systemTexts[g] = Vocabulary.text(systems[g]);
    }
    int n = c.groups() * c.promptsPerGroup();
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Rng.stream(c.seed(), ORDER_STREAM, 0).shuffle(order);
    double[] starts = c.arrivals().startTimes(n, Rng.stream(c.seed(), ARRIVAL_STREAM, 0));
    List<Session> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int prompt = order[i];
      int g = prompt / c.promptsPerGroup();
      int[] question =
          Vocabulary.tagged(
              Rng.stream(c.seed(), QUESTION_STREAM, prompt), c.questionTokens(), prompt);
      out.add(
          new Session(
              "g" + g + "-p" + (prompt % c.promptsPerGroup()),
              starts[i],
              systems[g],
              systemTexts[g],
              List.of(Turn.of(question, c.outputTokens(), 0)),
              "g" + g));
    }
    return List.copyOf(out);
  }
}
