package io.infera.sim.workload;

import io.infera.router.kv.ImageKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Single-turn image questions behind one shared system prompt, sent open loop: the multimodal
 * workload. Each request attaches one image: with probability {@code repeatFraction} one of a pool
 * of {@code popularImages} (drawn with weight 1/rank, so some repeat often, others rarely),
 * otherwise a fresh image never seen before. Questions are unique, so the text overlap is only the
 * system prompt, the same for every image: only image affinity can find the warm worker.
 */
public final class MultimodalWorkload implements Workload {

  public static final String NAME = "multimodal";

  private static final int SYSTEM_STREAM = 1;
  private static final int QUESTION_STREAM = 2;
  private static final int ARRIVAL_STREAM = 3;
  private static final int IMAGE_STREAM = 4;

  /**
   * The knobs.
   *
   * @param requests number of requests, ≥ 1
   * @param systemTokens the shared system prompt's length, ≥ 0
   * @param questionTokens every question's length, ≥ 1
   * @param outputTokens every answer's length, ≥ 1
   * @param popularImages images that repeat, ≥ 1
   * @param repeatFraction share of requests with a popular image, in [0, 1]
   */
  public record Config(
      int requests,
      int systemTokens,
      int questionTokens,
      int outputTokens,
      int popularImages,
      double repeatFraction,
      Arrivals arrivals,
      long seed) {

    public Config {
      Checks.positive("requests", requests);
      Checks.positive("questionTokens", questionTokens);
      Checks.positive("outputTokens", outputTokens);
      Checks.positive("popularImages", popularImages);
      if (systemTokens < 0) {
        throw new IllegalArgumentException("systemTokens must be >= 0, got " + systemTokens);
      }
      if (!(repeatFraction >= 0 && repeatFraction <= 1)) {
        throw new IllegalArgumentException(
            "repeatFraction must be in [0, 1], got " + repeatFraction);
      }
      Objects.requireNonNull(arrivals, "arrivals");
    }
  }

  private final Config config;
  private final List<Session> sessions;
  private final WorkloadStats stats;

  public MultimodalWorkload(Config config) {
    this.config = Objects.requireNonNull(config, "config");
    double[] starts =
        config
            .arrivals()
            .startTimes(config.requests(), Rng.stream(config.seed(), ARRIVAL_STREAM, 0));
    int[] system =
        Vocabulary.random(Rng.stream(config.seed(), SYSTEM_STREAM, 0), config.systemTokens());
    String systemText = Vocabulary.text(system);
    double[] cumulative = new double[config.popularImages()];
    double sum = 0;
    for (int i = 0; i < cumulative.length; i++) {
      sum += 1.0 / (i + 1);
      cumulative[i] = sum;
    }
    Rng pick = Rng.stream(config.seed(), IMAGE_STREAM, 0);
    List<Session> out = new ArrayList<>(config.requests());
    for (int i = 0; i < config.requests(); i++) {
      String image;
      if (pick.nextDouble() < config.repeatFraction()) {
        double u = pick.nextDouble() * sum;
        int k = 0;
        while (k < cumulative.length - 1 && cumulative[k] < u) {
          k++;
        }
        image = "https://images.example/popular/" + config.seed() + "/" + k + ".jpg";
      } else {
        image = "https://images.example/unique/" + config.seed() + "/" + i + ".jpg";
      }
      int[] question =
          Vocabulary.tagged(
              Rng.stream(config.seed(), QUESTION_STREAM, i), config.questionTokens(), i);
      String id = "m" + i;
      Turn turn =
          new Turn(
              question,
              Vocabulary.text(question),
              config.outputTokens(),
              0,
              new long[] {ImageKey.of(image)});
      out.add(new Session(id, starts[i], system, systemText, List.of(turn), id));
    }
    this.sessions = List.copyOf(out);
    this.stats = WorkloadStats.of(sessions, config.systemTokens());
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
    p.put("requests", config.requests());
    p.put("system_tokens", config.systemTokens());
    p.put("question_tokens", config.questionTokens());
    p.put("output_tokens", config.outputTokens());
    p.put("popular_images", config.popularImages());
    p.put("repeat_fraction", config.repeatFraction());
    p.put("arrivals", Checks.lower(config.arrivals().process()));
    p.put("rate_per_sec", config.arrivals().ratePerSec());
    p.put("seed", config.seed());
    return p;
  }
}
