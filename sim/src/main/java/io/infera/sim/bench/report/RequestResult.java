package io.infera.sim.bench.report;

import java.util.List;
import java.util.Objects;

/**
 * What the benchmark measured for one request of one arm and seed. Times are ms on the driver's
 * clock (wall time, or virtual time in the discrete-event driver).
 *
 * @param policy the arm (router policy name or {@code oracle})
 * @param seed the workload seed of the run
 * @param sessionId the workload session
 * @param turn the turn within the session, 0-based
 * @param worker the worker that served it; null or empty when it never reached one
 * @param sentMs when the request was sent, from the start of the run
 * @param ttftMs time to first token; meaningless when {@code error}
 * @param e2eMs time to the last token; meaningless when {@code error}
 * @param itlMs gaps between consecutive output tokens (inter-token latency), possibly empty
 * @param promptTokens prompt length the engine saw
 * @param cachedTokens prompt tokens served from the engine's prefix cache
 * @param outputTokens tokens generated
 * @param error whether the request failed (including rejections)
 * @param errorKind why, e.g. {@link #REJECTED}, {@code timeout}, {@code http_502}; null when not an
 *     error
 */
public record RequestResult(
    String policy,
    int seed,
    String sessionId,
    int turn,
    String worker,
    double sentMs,
    double ttftMs,
    double e2eMs,
    List<Double> itlMs,
    int promptTokens,
    int cachedTokens,
    int outputTokens,
    boolean error,
    String errorKind) {

  /**
   * The {@code errorKind} of a request refused by admission control or back-pressure (HTTP 429, or
   * 503 with no routable worker) rather than failed while being served.
   */
  public static final String REJECTED = "rejected";

  public RequestResult {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(sessionId, "sessionId");
    itlMs = itlMs == null ? List.of() : List.copyOf(itlMs);
  }

  /** A request that completed. */
  public static RequestResult ok(
      String policy,
      int seed,
      String sessionId,
      int turn,
      String worker,
      double sentMs,
      double ttftMs,
      double e2eMs,
      List<Double> itlMs,
      int promptTokens,
      int cachedTokens,
      int outputTokens) {
    return new RequestResult(
        policy,
        seed,
        sessionId,
        turn,
        worker,
        sentMs,
        ttftMs,
        e2eMs,
        itlMs,
        promptTokens,
        cachedTokens,
        outputTokens,
        false,
        null);
  }

  /** A request that failed with {@code errorKind}; {@code worker} may be null. */
  public static RequestResult failed(
      String policy,
      int seed,
      String sessionId,
      int turn,
      String worker,
      double sentMs,
      String errorKind) {
    return new RequestResult(
        policy,
        seed,
        sessionId,
        turn,
        worker,
        sentMs,
        Double.NaN,
        Double.NaN,
        List.of(),
        0,
        0,
        0,
        true,
        Objects.requireNonNull(errorKind, "errorKind"));
  }

  /** Whether this is an error of kind {@link #REJECTED}. */
  public boolean rejected() {
    return error && REJECTED.equals(errorKind);
  }

  /** Whether a worker served (or tried to serve) it. */
  public boolean routed() {
    return worker != null && !worker.isEmpty();
  }
}
