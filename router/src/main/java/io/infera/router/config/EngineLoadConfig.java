package io.infera.router.config;

import java.util.Set;

/**
 * Engine-reported load ({@code policy.engineLoad.*}, docs/routing.md "Engine-reported load"): how
 * often each worker's {@code /metrics} is scraped, how long a snapshot counts, and how much its
 * term weighs in the cost.
 *
 * @param enabled scrape and add the engine term (off: the term is 0 everywhere, nothing scraped)
 * @param intervalMs time between two scrapes of one worker
 * @param timeoutMs a scrape slower than this fails (counted as {@code timeout})
 * @param maxStalenessMs a snapshot older than this is unknown: the term falls back to 0
 * @param weight multiplies the engine term (blocks) before it is added to the cost
 * @param maxBodyBytes a {@code /metrics} body above this fails (counted as {@code too_large})
 * @param optOutWorkers static workers with {@code discovery.workers[].engineLoad: false}
 * @param optOutPools kubernetes pools with {@code discovery.pools[].engineLoad: false}
 */
public record EngineLoadConfig(
    boolean enabled,
    long intervalMs,
    long timeoutMs,
    long maxStalenessMs,
    double weight,
    long maxBodyBytes,
    Set<String> optOutWorkers,
    Set<String> optOutPools) {

  public static final boolean DEFAULT_ENABLED = false;
  public static final long DEFAULT_INTERVAL_MS = 500;
  public static final long DEFAULT_TIMEOUT_MS = 1000;
  public static final long DEFAULT_MAX_STALENESS_MS = 2000;
  public static final double DEFAULT_WEIGHT = 1.0;
  public static final long DEFAULT_MAX_BODY_BYTES = 4L << 20;

  public static final EngineLoadConfig DEFAULTS =
      new EngineLoadConfig(
          DEFAULT_ENABLED,
          DEFAULT_INTERVAL_MS,
          DEFAULT_TIMEOUT_MS,
          DEFAULT_MAX_STALENESS_MS,
          DEFAULT_WEIGHT,
          DEFAULT_MAX_BODY_BYTES,
          Set.of(),
          Set.of());

  public EngineLoadConfig {
    optOutWorkers = Set.copyOf(optOutWorkers);
    optOutPools = Set.copyOf(optOutPools);
    if (intervalMs < 1 || timeoutMs < 1 || maxStalenessMs < 1 || maxBodyBytes < 1) {
      throw new IllegalArgumentException(
          "intervalMs, timeoutMs, maxStalenessMs and maxBodyBytes must be >= 1");
    }
    if (!Double.isFinite(weight) || weight < 0) {
      throw new IllegalArgumentException("weight must be a finite number >= 0, got " + weight);
    }
  }

  /** The same settings switched on or off (the bench's two arms). */
  public EngineLoadConfig withEnabled(boolean on) {
    return new EngineLoadConfig(
        on,
        intervalMs,
        timeoutMs,
        maxStalenessMs,
        weight,
        maxBodyBytes,
        optOutWorkers,
        optOutPools);
  }

  /** Whether a worker of {@code pool} with id {@code workerId} is scraped. */
  public boolean scrapes(String workerId, String pool) {
    return enabled && !optOutWorkers.contains(workerId) && !optOutPools.contains(pool);
  }
}
