package io.infera.router.routing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * The request path's decision meters: analysis (parse, render, tokenize) time and failures, and
 * per-pick decision time and predicted hit ratio. Meters live in a private composite until {@link
 * #bindTo} adds the router's registry, so the request path records the same way bound or not.
 * Thread-safe.
 */
public final class RoutingMetrics implements MeterBinder {

  private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
  private final Timer decision;
  private final Timer tokenize;
  private final DistributionSummary hitRatio;
  private final Counter zeroBlocks;
  private final Map<String, Counter> tokenizeFailures = new ConcurrentHashMap<>();
  private final Counter multimodalRequests;
  private final Counter imagesHeld;
  private final Counter imagesNotHeld;
  private final Counter[] unkeyed = new Counter[MediaRefs.Unkeyed.values().length];
  // The mean for status documents, kept here so it does not depend on a bound registry.
  private final DoubleAdder hitRatioSum = new DoubleAdder();
  private final LongAdder hitRatioCount = new LongAdder();

  public RoutingMetrics() {
    decision =
        Timer.builder("infera.routing.decision")
            .description("hash + match + score + pick, per request")
            .publishPercentiles(0.5, 0.99)
            .register(meters);
    tokenize =
        Timer.builder("infera.tokenize")
            .description("request parsing, template rendering and tokenization")
            .publishPercentiles(0.5, 0.99)
            .register(meters);
    hitRatio =
        DistributionSummary.builder("infera.routing.predicted.hit.ratio")
            .description("cached blocks / request blocks on the picked worker")
            .register(meters);
    zeroBlocks =
        Counter.builder("infera.routing.zero.blocks")
            .description("requests routed with no full block (short or untokenizable prompts)")
            .register(meters);
    multimodalRequests =
        Counter.builder("infera.multimodal.requests")
            .description("analysed requests carrying image, audio or video content")
            .register(meters);
    imagesHeld = images("hit");
    imagesNotHeld = images("miss");
    for (MediaRefs.Unkeyed u : MediaRefs.Unkeyed.values()) {
      unkeyed[u.ordinal()] =
          Counter.builder("infera.multimodal.unkeyed")
              .description("media found without an affinity key, by reason")
              .tag("reason", u.label())
              .register(meters);
    }
  }

  private Counter images(String affinity) {
    return Counter.builder("infera.multimodal.images")
        .description(
            "images of booked multimodal picks (mixed or prefill) by whether the picked worker"
                + " held them")
        .tag("affinity", affinity)
        .register(meters);
  }

  /** One analysed multimodal request. */
  public void multimodal(MediaRefs.Media media) {
    multimodalRequests.increment();
    for (MediaRefs.Unkeyed u : MediaRefs.Unkeyed.values()) {
      int n = media.unkeyed(u);
      if (n > 0) {
        unkeyed[u.ordinal()].increment(n);
      }
    }
  }

  /**
   * One booked multimodal pick that used image affinity.
   *
   * @param images media in the request
   * @param held those the picked worker held
   */
  public void imageAffinity(int images, int held) {
    imagesHeld.increment(held);
    imagesNotHeld.increment(Math.max(0, images - held));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    meters.add(registry);
  }

  /**
   * One pick.
   *
   * @param nanos hashing plus match, score and pick
   * @param requestBlocks the request's full blocks (0: counted as a zero-block request)
   * @param hitBlocks cached blocks on the picked worker
   */
  public void decision(long nanos, int requestBlocks, int hitBlocks) {
    decision.record(Duration.ofNanos(nanos));
    if (requestBlocks == 0) {
      zeroBlocks.increment();
    } else {
      double ratio = (double) hitBlocks / requestBlocks;
      hitRatio.record(ratio);
      hitRatioSum.add(ratio);
      hitRatioCount.increment();
    }
  }

  /** One analysed request (local tokenizer) or one engine {@code /tokenize} round trip. */
  public void tokenized(long nanos) {
    tokenize.record(Duration.ofNanos(nanos));
  }

  /** A request routed by load because it could not be tokenized, by reason. */
  public void tokenizeFailed(String reason) {
    tokenizeFailures
        .computeIfAbsent(
            reason,
            r ->
                Counter.builder("infera.tokenize.failures")
                    .description("requests routed by load because they could not be tokenized")
                    .tag("reason", r)
                    .register(meters))
        .increment();
  }

  /** Mean predicted hit ratio of the picks so far, or null before the first with a full block. */
  public Double predictedHitRatio() {
    long n = hitRatioCount.sum();
    return n == 0 ? null : hitRatioSum.sum() / n;
  }
}
