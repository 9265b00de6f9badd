package io.infera.sim.workload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Tool-calling agents, the workload of long shared tool schemas and short turns: {@code agents}
 * sessions, each using one of {@code toolsets} tool schemas of {@code schemaTokens} tokens (shared
 * by every agent of that toolset, placed first) followed by a task of {@code taskTokens} tokens of
 * its own; then {@code steps} turns, each a tool result of {@code observationTokens} tokens
 * answered by a tool call of at most {@code callTokens}. The pause before steps 2.. is the tool's
 * run time, exponential with mean {@code toolMs}. Agents pick their toolset uniformly at random and
 * start according to {@code arrivals}.
 *
 * <p>What it shows: nearly all of a prompt is the schema and the agent's own history, while each
 * step adds a few dozen tokens, so a router that keeps a toolset's agents where its schema is
 * cached (and an agent where its history is) saves almost the whole prefill, and one that piles
 * every agent of a toolset on one worker queues them.
 *
 * <p>Determinism: every piece (schema g, task a, observation a·steps+k) has its own seeded stream;
 * different toolsets' schemas and different agents' tasks differ in their first token (below
 * 2,000), so they never share a prefix beyond the schema.
 */
public final class ToolAgentWorkload implements Workload {

  public static final String NAME = "tool-agent";

  private static final int SCHEMA_STREAM = 1;
  private static final int TASK_STREAM = 2;
  private static final int OBSERVATION_STREAM = 3;
  private static final int TOOL_STREAM = 4;
  private static final int TOOLSET_STREAM = 5;
  private static final int ARRIVAL_STREAM = 6;

  /**
   * The knobs.
   *
   * @param agents number of sessions, ≥ 1
   * @param toolsets distinct tool schemas, ≥ 1
   * @param schemaTokens length of each tool schema, ≥ 1
   * @param taskTokens each agent's own task after the schema, ≥ 0
   * @param steps turns per agent, ≥ 1
   * @param observationTokens each step's tool result (the user message), ≥ 1
   * @param callTokens each answer's length (the tool call, {@code max_tokens}), ≥ 1
   * @param toolMs mean tool run time before steps 2.., ms, ≥ 0
   * @param arrivals when agents start
   * @param seed seeds every random choice
   */
  public record Config(
      int agents,
      int toolsets,
      int schemaTokens,
      int taskTokens,
      int steps,
      int observationTokens,
      int callTokens,
      double toolMs,
      Arrivals arrivals,
      long seed) {

    public Config {
      Checks.positive("agents", agents);
      Checks.positive("toolsets", toolsets);
      Checks.positive("schemaTokens", schemaTokens);
      Checks.atLeastZero("taskTokens", taskTokens);
      Checks.positive("steps", steps);
      Checks.positive("observationTokens", observationTokens);
      Checks.positive("callTokens", callTokens);
      Checks.finiteAtLeastZero("toolMs", toolMs);
      Objects.requireNonNull(arrivals, "arrivals");
      if ((long) agents * steps > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "agents × steps is too large: " + agents + " × " + steps);
      }
    }
  }

  private final Config config;
  private final List<Session> sessions;
  private final WorkloadStats stats;

  public ToolAgentWorkload(Config config) {
    this.config = Objects.requireNonNull(config, "config");
    this.sessions = generate(config);
    long usedToolsets = sessions.stream().map(Session::group).distinct().count();
    long distinct =
        usedToolsets * config.schemaTokens()
            + (long) config.agents()
                * (config.taskTokens() + (long) config.steps() * config.observationTokens());
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
    p.put("agents", config.agents());
    p.put("toolsets", config.toolsets());
    p.put("schema_tokens", config.schemaTokens());
    p.put("task_tokens", config.taskTokens());
    p.put("steps", config.steps());
    p.put("observation_tokens", config.observationTokens());
    p.put("call_tokens", config.callTokens());
    p.put("tool_ms", config.toolMs());
    p.put("arrivals", Checks.lower(config.arrivals().process()));
    p.put("rate_per_sec", config.arrivals().ratePerSec());
    p.put("seed", config.seed());
    return p;
  }

  private static List<Session> generate(Config c) {
    long seed = c.seed();
    int[][] schemas = new int[c.toolsets()][];
    for (int g = 0; g < c.toolsets(); g++) {
      schemas[g] = Vocabulary.tagged(Rng.stream(seed, SCHEMA_STREAM, g), c.schemaTokens(), g);
    }
    double[] starts = c.arrivals().startTimes(c.agents(), Rng.stream(seed, ARRIVAL_STREAM, 0));
    Rng toolsetOf = Rng.stream(seed, TOOLSET_STREAM, 0);
    List<Session> out = new ArrayList<>(c.agents());
    for (int a = 0; a < c.agents(); a++) {
      int g = toolsetOf.nextInt(c.toolsets());
      int[] task = Vocabulary.tagged(Rng.stream(seed, TASK_STREAM, a), c.taskTokens(), a);
      int[] system = new int[schemas[g].length + task.length];
      System.arraycopy(schemas[g], 0, system, 0, schemas[g].length);
      System.arraycopy(task, 0, system, schemas[g].length, task.length);
      Rng tool = Rng.stream(seed, TOOL_STREAM, a);
      List<Turn> turns = new ArrayList<>(c.steps());
      for (int k = 0; k < c.steps(); k++) {
        long index = (long) a * c.steps() + k;
        int[] observation =
            Vocabulary.tagged(
                Rng.stream(seed, OBSERVATION_STREAM, index), c.observationTokens(), index);
        double pause = k == 0 ? 0 : tool.exponential(c.toolMs());
        turns.add(Turn.of(observation, c.callTokens(), pause));
      }
      out.add(
          new Session("a" + a, starts[a], system, Vocabulary.text(system), turns, "toolset" + g));
    }
    return List.copyOf(out);
  }
}
