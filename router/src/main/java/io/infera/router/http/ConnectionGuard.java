package io.infera.router.http;

import io.infera.router.config.RouterConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.RoutingContext;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listener's connection discipline (docs/operations.md, "HTTP server limits"): at most {@code
 * maxConnections} open (one more is closed at once, counted), and every connection on a deadline
 * while it owes the router bytes — {@code idleTimeoutMs} with no request under way, {@code
 * headerTimeoutMs} from a request's first byte to its last header (a client trickling a header is
 * cut however often it sends), {@code bodyTimeoutMs} from the headers to the body's end. A request
 * being answered has no deadline here: the upstream timeouts bound it. Each connection's state and
 * its one timer live on that connection's event loop; only the count is shared.
 */
final class ConnectionGuard implements MeterBinder {

  private static final Logger log = LoggerFactory.getLogger(ConnectionGuard.class);

  /** What a connection is waiting for; each phase but {@code BUSY} has a deadline. */
  enum Phase {
    /** No request under way: the next request's first byte (idle timeout). */
    IDLE,
    /** A request's first byte arrived: the end of its headers (header timeout). */
    HEAD,
    /** The headers arrived: the end of the body (body timeout). */
    BODY,
    /** The request is whole and being answered: no deadline. */
    BUSY;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final String listener;
  private final RouterConfig.ServerLimits limits;
  private final int maxConnections;
  private final AtomicInteger open = new AtomicInteger();
  private final Map<HttpConnection, Conn> conns = new ConcurrentHashMap<>();
  private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
  private final Counter refused;
  private final Map<Phase, Counter> timeouts = new EnumMap<>(Phase.class);

  /**
   * @param listener {@code public} or {@code admin}, the meters' tag
   * @param maxConnections the cap on open connections of this listener
   */
  ConnectionGuard(String listener, RouterConfig.ServerLimits limits, int maxConnections) {
    this.listener = listener;
    this.limits = limits;
    this.maxConnections = maxConnections;
    Gauge.builder("infera.http.connections", open, AtomicInteger::get)
        .description("open HTTP connections")
        .tag("listener", listener)
        .register(meters);
    refused =
        Counter.builder("infera.http.connections.refused")
            .description("connections closed on arrival because the listener's cap was reached")
            .tag("listener", listener)
            .register(meters);
    for (Phase p : new Phase[] {Phase.IDLE, Phase.HEAD, Phase.BODY}) {
      timeouts.put(
          p,
          Counter.builder("infera.http.timeouts")
              .description(
                  "connections closed for a deadline: idle (no request), head (headers too slow),"
                      + " body (body too slow)")
              .tags("listener", listener, "phase", p.label())
              .register(meters));
    }
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    meters.add(registry);
  }

  /** Open connections now. */
  int open() {
    return open.get();
  }

  /** A connection arrived (on its event loop, before any request of it). */
  void connected(HttpConnection conn) {
    if (open.incrementAndGet() > maxConnections) {
      open.decrementAndGet();
      refused.increment();
      ((ConnectionBase) conn).channel().close();
      return;
    }
    Channel channel = ((ConnectionBase) conn).channel();
    Conn c = new Conn(conn, channel);
    conns.put(conn, c);
    conn.closeHandler(
        v -> {
          if (conns.remove(conn) != null) {
            open.decrementAndGet();
          }
          c.cancel();
        });
    // First in the pipeline, before the HTTP decoder: sees a request's first byte.
    channel.pipeline().addFirst("infera-first-byte", new FirstByte(c));
    c.enter(Phase.IDLE, limits.idleTimeoutMs());
  }

  /** A request's headers arrived (its connection's event loop). */
  void headers(HttpServerRequest req) {
    Conn c = conns.get(req.connection());
    if (c != null) {
      c.request = req;
      c.enter(Phase.BODY, limits.bodyTimeoutMs());
    }
  }

  /** Tracks {@code ctx}'s answer: once it ends, its connection is idle again. */
  void answering(RoutingContext ctx) {
    Conn c = conns.get(ctx.request().connection());
    if (c != null) {
      ctx.addEndHandler(v -> c.answered());
    }
  }

  /** Per-connection state, confined to the connection's event loop. */
  private final class Conn {
    final HttpConnection conn;
    final Channel channel;
    Phase phase;
    long deadlineNanos;
    HttpServerRequest request;
    ScheduledFuture<?> timer;
    boolean closed;

    Conn(HttpConnection conn, Channel channel) {
      this.conn = conn;
      this.channel = channel;
    }

    void enter(Phase p, long timeoutMs) {
      phase = p;
      if (p == Phase.BUSY) {
        return; // the armed timer finds no deadline and lapses
      }
      deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      // One timer at a time: an earlier deadline than the armed one re-arms it.
      if (timer == null
          || timer.getDelay(TimeUnit.NANOSECONDS) > deadlineNanos - System.nanoTime()) {
        arm();
      }
    }

    void bytesIn() {
      if (phase == Phase.IDLE) {
        enter(Phase.HEAD, limits.headerTimeoutMs());
      }
    }

    void answered() {
      if (!closed && (phase == Phase.BODY || phase == Phase.BUSY)) {
        request = null;
        enter(Phase.IDLE, limits.idleTimeoutMs());
      }
    }

    private void arm() {
      if (timer != null) {
        timer.cancel(false);
      }
      long delay = Math.max(0, deadlineNanos - System.nanoTime());
      timer = channel.eventLoop().schedule(this::fire, delay, TimeUnit.NANOSECONDS);
    }

    private void fire() {
      timer = null;
      if (closed || phase == Phase.BUSY) {
        return;
      }
      if (phase == Phase.BODY && request != null && request.isEnded()) {
        phase = Phase.BUSY;
        return;
      }
      if (System.nanoTime() < deadlineNanos) {
        arm();
        return;
      }
      timeouts.get(phase).increment();
      log.debug(
          "connection closed listener={} phase={} remote={}",
          listener,
          phase.label(),
          conn.remoteAddress());
      closed = true;
      // The channel itself: Vert.x's close() is a graceful shutdown that waits for a request.
      channel.close();
    }

    void cancel() {
      closed = true;
      if (timer != null) {
        timer.cancel(false);
        timer = null;
      }
    }
  }

  /** Marks a connection's first inbound byte of each request; passes every message on. */
  private static final class FirstByte extends ChannelInboundHandlerAdapter {
    private final Conn conn;

    FirstByte(Conn conn) {
      this.conn = conn;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      conn.bytesIn();
      ctx.fireChannelRead(msg);
    }

    @Override
    public boolean isSharable() {
      return false;
    }
  }
}
