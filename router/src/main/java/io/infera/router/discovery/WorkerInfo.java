package io.infera.router.discovery;

import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import java.util.Objects;

/**
 * One engine endpoint as discovery sees it.
 *
 * @param url base HTTP URL, e.g. {@code http://10.0.0.7:8000}
 * @param engine {@code vllm}, {@code sglang} or {@code sim}
 * @param dpSize data-parallel ranks behind this worker (each publishes KV events on port + rank)
 * @param zmqEndpoint the engine's KV-event PUB endpoint (rank 0), or null
 * @param zmqReplayEndpoint the engine's replay ROUTER endpoint (rank 0), or null
 * @param pool the pool (or static group) it belongs to, for messages
 */
public record WorkerInfo(
    WorkerId id,
    String url,
    Role role,
    String engine,
    int dpSize,
    String zmqEndpoint,
    String zmqReplayEndpoint,
    Readiness readiness,
    String pool) {

  /** Whether discovery lets a worker take new requests. */
  public enum Readiness {
    /** Ready endpoint: routable (if healthy). */
    READY,
    /** Terminating endpoint: finishes in-flight requests, gets no new ones. */
    DRAINING
  }

  public WorkerInfo {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(readiness, "readiness");
    engine = engine == null ? "vllm" : engine;
    pool = pool == null ? "static" : pool;
    if (dpSize < 1) {
      throw new IllegalArgumentException("dpSize must be >= 1");
    }
  }

  public WorkerInfo withReadiness(Readiness r) {
    return new WorkerInfo(id, url, role, engine, dpSize, zmqEndpoint, zmqReplayEndpoint, r, pool);
  }
}
