package io.infera.router.events.nats;

import io.infera.router.nats.NatsAuth;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SharedLoad}'s NATS side: a subscription on the load subject over a given connection, or
 * over one of its own made in the background and reconnected forever; publishes never block.
 */
final class LoadSharingConnection {

  // Load sharing's log lines, under its name.
  private static final Logger log = LoggerFactory.getLogger(SharedLoad.class);

  private final String subject;
  private final boolean owned;
  private final NatsAuth auth;
  private volatile Connection connection;
  private volatile Dispatcher dispatcher;

  /**
   * @param owned whether {@link #close} closes the connection (it was made here)
   */
  LoadSharingConnection(String subject, boolean owned) {
    this(subject, owned, NatsAuth.NONE);
  }

  /**
   * @param auth credentials and TLS of the connection made here
   */
  LoadSharingConnection(String subject, boolean owned, NatsAuth auth) {
    this.subject = subject;
    this.owned = owned;
    this.auth = auth;
  }

  /**
   * Connection options for load sharing: reconnect forever, and a full outgoing queue drops
   * messages instead of blocking the publishing (event-loop) thread — heartbeats repair the loss.
   */
  static Options options(String url) {
    return options(url, NatsAuth.NONE, (conn, event) -> {});
  }

  private static Options options(String url, NatsAuth auth, ConnectionListener onEvent) {
    Options.Builder b = new Options.Builder();
    try {
      auth.apply(b);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(
          "load sharing cannot read its NATS credentials: " + e.getMessage(), e);
    }
    return b.server(url)
        .connectionName("infera-router-load")
        .maxReconnects(-1)
        .reconnectWait(Duration.ofMillis(500))
        .discardMessagesWhenOutgoingQueueFull()
        .connectionListener(
            (conn, event) -> {
              // A disconnect also fires on close; a reconnect is the news worth telling.
              if (event == ConnectionListener.Events.RECONNECTED) {
                log.info("load sharing nats reconnected url={}", url);
              } else {
                log.debug("load sharing nats event={} url={}", event.getEvent(), url);
              }
              onEvent.connectionEvent(conn, event);
            })
        .errorListener(
            new ErrorListener() {
              @Override
              public void errorOccurred(Connection conn, String error) {
                log.warn("load sharing nats error={}", error);
              }

              @Override
              public void exceptionOccurred(Connection conn, Exception e) {
                // Reconnect attempts while the server is away: the events above say enough.
                log.debug("load sharing nats error={}", e.toString());
              }
            })
        .build();
  }

  /** Connects to {@code url} in the background (retried forever) and subscribes once up. */
  void connectInBackground(
      String url, Consumer<byte[]> receive, BooleanSupplier closed, Supplier<String> replica)
      throws InterruptedException {
    Nats.connectAsynchronously(
        options(
            url,
            auth,
            (conn, event) -> {
              // A first connect that had to be retried is announced as a reconnect.
              if (event == ConnectionListener.Events.CONNECTED
                  || event == ConnectionListener.Events.RECONNECTED) {
                if (attachOnce(conn, receive, closed)) {
                  log.info("load sharing connected replica={} subject={}", replica.get(), subject);
                }
              }
            }),
        true);
  }

  /** Subscribes on {@code nc} (the caller's connection). */
  void attach(Connection nc, Consumer<byte[]> receive) {
    connection = nc;
    Dispatcher d = nc.createDispatcher(msg -> receive.accept(msg.getData()));
    d.subscribe(subject);
    dispatcher = d;
  }

  /**
   * Subscribes on a connection that came up in the background, the first time only; closes it if
   * load sharing was closed meanwhile.
   *
   * @return whether it subscribed now
   */
  private boolean attachOnce(Connection nc, Consumer<byte[]> receive, BooleanSupplier closed) {
    synchronized (this) {
      if (connection != null) {
        return false;
      }
      connection = nc;
    }
    if (closed.getAsBoolean()) {
      closeQuietly(nc);
      return false;
    }
    boolean ok = false;
    try {
      Dispatcher d = nc.createDispatcher(msg -> receive.accept(msg.getData()));
      d.subscribe(subject);
      dispatcher = d;
      ok = true;
    } catch (RuntimeException e) {
      log.warn("load sharing cannot subscribe subject={} error={}", subject, e.toString());
    }
    if (closed.getAsBoolean()) {
      closeQuietly(nc); // close() ran meanwhile and saw no connection yet
    }
    return ok;
  }

  /** Publishes on the load subject; throws when not connected yet. */
  void publish(byte[] message) {
    Connection c = connection;
    if (c == null) {
      throw new IllegalStateException("load sharing not connected yet");
    }
    c.publish(subject, message);
  }

  /** True once subscribed on a connection that is up now. */
  boolean connected() {
    Connection c = connection;
    return dispatcher != null && c != null && c.getStatus() == Connection.Status.CONNECTED;
  }

  /** Unsubscribes; closes the connection when it was made here (after letting a goodbye out). */
  void close() {
    Connection nc = connection;
    if (nc == null) {
      return;
    }
    try {
      if (dispatcher != null) {
        nc.closeDispatcher(dispatcher);
      }
      if (owned) {
        nc.flush(Duration.ofMillis(500)); // let the goodbye out
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log.debug("load sharing close error={}", e.toString());
    }
    if (owned) {
      closeQuietly(nc);
    }
  }

  private static void closeQuietly(Connection nc) {
    try {
      nc.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
