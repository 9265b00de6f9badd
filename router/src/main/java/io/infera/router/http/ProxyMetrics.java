package io.infera.router.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * The proxy's meters: requests by status and worker, request duration, the workers' time to first
 * byte, retries, and vLLM hand-overs that went to decode without KV. Recorded into a private
 * composite that {@link #bindTo} connects to the router's registry. Thread-safe.
 */
public final class ProxyMetrics implements MeterBinder {

  private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
  private final Counter retries;
  private final Counter internalHeaders;
  private final Map<HandOverBodies.WithoutKv, Counter> withoutKv =
      new EnumMap<>(HandOverBodies.WithoutKv.class);

  public ProxyMetrics() {
    retries =
        Counter.builder("infera.upstream.retries")
            .description(
                "attempts repeated on another worker after a failure before the first byte")
            .register(meters);
    internalHeaders =
        Counter.builder("infera.http.internal.headers.dropped")
            .description(
                "client request headers the router reserves for itself (X-data-parallel-rank,"
                    + " x-infera-*) dropped before proxying")
            .register(meters);
    // Every reason up front: a fleet that never sees one still serves its zero.
    for (HandOverBodies.WithoutKv r : HandOverBodies.WithoutKv.values()) {
      withoutKv.put(
          r,
          Counter.builder("infera.handover.without.kv")
              .description(
                  "vLLM decode halves sent without kv_transfer_params (the decode worker"
                      + " computes the prompt itself)")
              .tag("reason", r.label())
              .register(meters));
    }
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    meters.add(registry);
  }

  /**
   * One client request ended.
   *
   * @param status the HTTP status sent, or {@code client_closed} / {@code upstream_broken}
   * @param worker the worker that answered, or null
   */
  void request(String status, String worker, long durationNanos) {
    Counter.builder("infera.requests")
        .tags("status", status, "worker", worker == null ? "none" : worker)
        .register(meters)
        .increment();
    Timer.builder("infera.request.duration")
        .tags("status", status)
        .register(meters)
        .record(Duration.ofNanos(durationNanos));
  }

  /** A worker's response headers arrived {@code nanos} after the request was sent. */
  void firstByte(String worker, long nanos) {
    Timer.builder("infera.upstream.ttfb")
        .description("time to the worker's first response byte")
        .tags("worker", worker)
        .register(meters)
        .record(Duration.ofNanos(nanos));
  }

  /** A vLLM decode half goes without {@code kv_transfer_params}, for {@code reason}. */
  void handOverWithoutKv(HandOverBodies.WithoutKv reason) {
    withoutKv.get(reason).increment();
  }

  /** A client sent {@code n} headers only the router may set; they were dropped. */
  void internalHeadersDropped(int n) {
    internalHeaders.increment(n);
  }

  /** An attempt is repeated on another worker. */
  void retry() {
    retries.increment();
  }
}
