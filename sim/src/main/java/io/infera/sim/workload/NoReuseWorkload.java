package io.infera.sim.workload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Unique single-turn prompts with no shared prefix at all, sent open loop: the control workload. No
 * policy can hit the cache, so cache-aware routing must do no worse than load balancing here (its
 * load terms alone decide). Prompts are tagged in their first two tokens, so below 2,000 prompts no
 * two share even their first token, and below 4 million none share more than one.
 */
public final class NoReuseWorkload implements Workload {

  public static final String NAME = "no-reuse";

  private static final int PROMPT_STREAM = 1;
  private static final int ARRIVAL_STREAM = 2;

  /**
   * The knobs.
   *
   * @param prompts number of requests, ≥ 1
   * @param promptTokens every prompt's length, ≥ 1
   * @param outputTokens every answer's length, ≥ 1
   * @param arrivals when the prompts are sent
   * @param seed seeds every random choice
   */
  public record Config(
      int prompts, int promptTokens, int outputTokens, Arrivals arrivals, long seed) {

    public Config {
      Checks.positive("prompts", prompts);
      Checks.positive("promptTokens", promptTokens);
      Checks.positive("outputTokens", outputTokens);
      Objects.requireNonNull(arrivals, "arrivals");
    }
  }

  private final Config config;
  private final List<Session> sessions;
  private final WorkloadStats stats;

  public NoReuseWorkload(Config config) {
    this.config = Objects.requireNonNull(config, "config");
    double[] starts =
        config
            .arrivals()
            .startTimes(config.prompts(), Rng.stream(config.seed(), ARRIVAL_STREAM, 0));
    List<Session> out = new ArrayList<>(config.prompts());
    int[] noSystem = new int[0];
    for (int i = 0; i < config.prompts(); i++) {
      int[] prompt =
          Vocabulary.tagged(Rng.stream(config.seed(), PROMPT_STREAM, i), config.promptTokens(), i);
      String id = "n" + i;
      out.add(
          new Session(
              id, starts[i], noSystem, "", List.of(Turn.of(prompt, config.outputTokens(), 0)), id));
    }
    this.sessions = List.copyOf(out);
    this.stats = WorkloadStats.of(sessions, (long) config.prompts() * config.promptTokens());
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
    p.put("prompts", config.prompts());
    p.put("prompt_tokens", config.promptTokens());
    p.put("output_tokens", config.outputTokens());
    p.put("arrivals", Checks.lower(config.arrivals().process()));
    p.put("rate_per_sec", config.arrivals().ratePerSec());
    p.put("seed", config.seed());
    return p;
  }
}
