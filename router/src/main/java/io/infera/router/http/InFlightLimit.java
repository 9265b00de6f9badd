package io.infera.router.http;

import io.infera.router.routing.RoutingFailure;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code limits.maxInFlight}: API requests under way, from before their body is read to their last
 * response byte (or the client leaving). One more is refused with 503 and {@code Retry-After}
 * before its body is buffered — the router is overloaded, not the client over a quota, so not 429.
 * A platform handler, so Vert.x Web lets it run before the body handler.
 */
final class InFlightLimit implements PlatformHandler, MeterBinder {

  private final int max;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
  private final Counter refused;

  InFlightLimit(int max) {
    this.max = max;
    Gauge.builder("infera.http.in.flight", inFlight, AtomicInteger::get)
        .description("API requests under way (limits.maxInFlight caps them)")
        .register(meters);
    refused =
        Counter.builder("infera.http.in.flight.refused")
            .description("API requests refused with 503 because limits.maxInFlight were under way")
            .register(meters);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    meters.add(registry);
  }

  /** Requests under way now. */
  int inFlight() {
    return inFlight.get();
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (inFlight.incrementAndGet() > max) {
      inFlight.decrementAndGet();
      refused.increment();
      ErrorResponses.send(
          ctx,
          new RoutingFailure.Overloaded(
              "the router is at its limit of " + max + " requests under way; retry shortly"),
          RouterServer.requestId(ctx));
      return;
    }
    ctx.addEndHandler(v -> inFlight.decrementAndGet());
    ctx.next();
  }
}
