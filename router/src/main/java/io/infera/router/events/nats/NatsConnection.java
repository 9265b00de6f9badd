package io.infera.router.events.nats;

import io.infera.router.events.Backoff;
import io.infera.router.nats.ConnectError;
import io.infera.router.nats.NatsAuth;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code nats} transport's connection: made on the consumer thread, reconnected forever by
 * jnats with the transport's {@link Backoff}; a reconnect asks the consumer for a fresh consumer
 * (it resumes after the last processed sequence). jnats's errors go to the router's log.
 */
final class NatsConnection {

  // The transport's log lines, under its name.
  private static final Logger log = LoggerFactory.getLogger(NatsTransport.class);

  private final String url;
  private final NatsAuth auth;
  private final Duration timeout;
  private final Backoff backoff;
  private final NatsCounters counters;
  private final Runnable onReconnect;
  private final LongSupplier processed;
  private final BooleanSupplier running;
  private volatile boolean connected;
  private volatile long downSinceNanos = System.nanoTime();
  private Connection conn;

  /**
   * @param onReconnect called on jnats's thread after the connection came back
   * @param processed the last processed stream sequence, for logs
   * @param running false while the transport stops (quiets the logs)
   */
  NatsConnection(
      String url,
      NatsAuth auth,
      Duration timeout,
      Backoff backoff,
      NatsCounters counters,
      Runnable onReconnect,
      LongSupplier processed,
      BooleanSupplier running) {
    this.url = url;
    this.auth = auth;
    this.timeout = timeout;
    this.backoff = backoff;
    this.counters = counters;
    this.onReconnect = onReconnect;
    this.processed = processed;
    this.running = running;
  }

  /** The connection, made now when there is none or it was closed. Consumer thread. */
  Connection get() throws Exception {
    if (conn == null || conn.getStatus() == Connection.Status.CLOSED) {
      // Read the credential files at each connect: a rotated Secret reaches the next one.
      ConnectError why = new ConnectError();
      Options options =
          auth.apply(new Options.Builder())
              .server(url)
              .connectionName("infera-router")
              .maxReconnects(-1)
              .reconnectDelayHandler(tries -> backoff.delay((int) Math.min(tries, 30)))
              .connectionTimeout(timeout)
              .connectionListener(this::onEvent)
              .errorListener(new LoggingErrorListener(why))
              .build();
      Connection c;
      try {
        c = Nats.connect(options);
      } catch (IOException e) {
        throw why.explain(e);
      }
      up();
      log.info(
          "nats connected url={} server={} auth={}", url, c.getConnectedUrl(), auth.describe());
      conn = c;
    }
    return conn;
  }

  /** Whether the connection is up now. Any thread. */
  boolean connected() {
    return connected;
  }

  /** Since when the connection is down ({@link System#nanoTime()}); meaningless while up. */
  long downSinceNanos() {
    return downSinceNanos;
  }

  private void up() {
    connected = true;
  }

  private void down() {
    if (connected) {
      downSinceNanos = System.nanoTime();
    }
    connected = false;
  }

  /** Closes the connection. Consumer thread. */
  void close() {
    Connection c = conn;
    conn = null;
    if (c != null) {
      try {
        c.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        log.debug("nats close failed", e);
      }
    }
    down();
  }

  private void onEvent(Connection c, ConnectionListener.Events event) {
    switch (event) {
      case CONNECTED -> up();
      case DISCONNECTED -> {
        // Also reported for each failed first connect: log only the loss of a connection.
        if (connected && running.getAsBoolean()) {
          log.warn("nats disconnected url={}, reconnecting", url);
        }
        down();
      }
      case RECONNECTED -> {
        up();
        counters.reconnects.incrementAndGet();
        // Resume from the last processed sequence on a fresh consumer.
        onReconnect.run();
        log.info("nats reconnected url={} processed_seq={}", url, processed.getAsLong());
      }
      case CLOSED -> down();
      case LAME_DUCK -> log.warn("nats server entering lame duck mode url={}", url);
      default -> log.debug("nats connection event={}", event);
    }
  }

  /** jnats errors into the router's log. */
  private final class LoggingErrorListener implements ErrorListener {
    private final ConnectError why;

    LoggingErrorListener(ConnectError why) {
      this.why = why;
    }

    @Override
    public void errorOccurred(Connection c, String error) {
      log.warn("nats error url={} error={}", url, error);
    }

    @Override
    public void exceptionOccurred(Connection c, Exception e) {
      why.saw(e);
      if (running.getAsBoolean()) {
        log.debug("nats exception url={} error={}", url, e.toString());
      }
    }

    @Override
    public void heartbeatAlarm(
        Connection c,
        JetStreamSubscription sub,
        long lastStreamSequence,
        long lastConsumerSequence) {
      log.debug(
          "nats consumer heartbeat missed last_stream_seq={} processed_seq={}",
          lastStreamSequence,
          processed.getAsLong());
    }

    @Override
    public void pullStatusError(
        Connection c, JetStreamSubscription sub, io.nats.client.support.Status status) {
      log.debug("nats pull status error={}", status);
    }
  }
}
