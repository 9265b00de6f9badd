package io.infera.router.relay;

import io.infera.router.events.Backoff;
import io.infera.router.nats.ConnectError;
import io.infera.router.nats.JetStreamSetup;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamOptions;
import io.nats.client.KeyValue;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.OrderedConsumerContext;
import io.nats.client.PublishOptions;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link StreamClient} over jnats: a connection replaced by a fresh one (capped exponential
 * back-off with jitter, forever) whenever it is lost, JetStream publishes with {@code Nats-Msg-Id},
 * reads through ordered consumers, snapshots in the KV bucket.
 */
final class NatsStreamClient implements StreamClient {

  private static final Logger log = LoggerFactory.getLogger(NatsStreamClient.class);

  /** JetStream API error: wrong last sequence (an expected-last-sequence check failed). */
  private static final int WRONG_LAST_SEQUENCE = 10071;

  /** JetStream API error: no message found. */
  private static final int NO_MESSAGE = 10037;

  private final RelayOptions options;
  private final Backoff backoff;
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicBoolean reconnecting = new AtomicBoolean();
  private volatile boolean closing;
  private volatile Connection nc;
  private volatile JetStream js;
  private volatile JetStreamManagement jsm;
  private volatile KeyValue kv;

  NatsStreamClient(RelayOptions options) {
    this.options = options;
    this.backoff = new Backoff(options.reconnectWait(), options.reconnectWaitMax());
  }

  @Override
  public boolean connect(BooleanSupplier stillWanted) throws InterruptedException {
    int attempts = 0;
    while (stillWanted.getAsBoolean() && !closing) {
      try {
        open();
        log.info(
            "relay nats connected url={} server={} attempts={}",
            nc.getConnectedUrl(),
            nc.getServerInfo().getServerId(),
            attempts + 1);
        return true;
      } catch (IOException e) {
        attempts++;
        if (attempts == 1) {
          log.warn(
              "relay nats connect failed, retrying url={} error={}",
              options.natsUrl(),
              e.toString());
        } else {
          log.debug("relay nats connect failed attempts={} error={}", attempts, e.toString());
        }
        Thread.sleep(backoff.delayMillis(attempts));
      }
    }
    return false;
  }

  /**
   * A new connection. jnats does not reconnect by itself ({@code maxReconnects 0}): after a lost
   * connection it would resend the publishes still queued for the old one behind those lost in its
   * socket, storing a subject's batches out of order. A fresh connection drops that queue, so what
   * reached the stream of an unacknowledged window is always a prefix of it, and the publisher
   * republishes the rest in order.
   */
  private void open() throws IOException, InterruptedException {
    ConnectError why = new ConnectError();
    Options natsOptions =
        options
            .auth()
            .apply(Options.builder())
            .servers(options.natsUrl().split("\\s*,\\s*"))
            .connectionName("infera-relay " + options.workerId())
            .maxReconnects(0)
            .connectionTimeout(options.publishTimeout())
            .connectionListener(this::connectionEvent)
            .errorListener(new QuietErrors(why))
            .build();
    Connection c;
    try {
      c = Nats.connect(natsOptions);
    } catch (IOException e) {
      throw why.explain(e);
    }
    JetStreamOptions jso =
        JetStreamOptions.builder().requestTimeout(options.publishTimeout()).build();
    js = c.jetStream(jso);
    jsm = c.jetStreamManagement(jso);
    kv = null;
    nc = c;
  }

  private void connectionEvent(Connection c, ConnectionListener.Events event) {
    if (c != nc) {
      return;
    }
    switch (event) {
      case DISCONNECTED -> log.warn("relay nats disconnected");
      case CLOSED -> {
        if (!closing) {
          reconnectInBackground();
        }
      }
      default -> log.debug("relay nats event={}", event);
    }
  }

  /** Opens a new connection with capped, jittered back-off until it works or we close. */
  private void reconnectInBackground() {
    if (!reconnecting.compareAndSet(false, true)) {
      return;
    }
    Thread t =
        new Thread(
            () -> {
              int attempts = 0;
              try {
                while (!closing) {
                  Thread.sleep(backoff.delayMillis(attempts + 1));
                  attempts++;
                  try {
                    open();
                    reconnects.incrementAndGet();
                    log.info(
                        "relay nats reconnected url={} attempts={}",
                        nc.getConnectedUrl(),
                        attempts);
                    return;
                  } catch (IOException e) {
                    log.debug(
                        "relay nats reconnect failed attempts={} error={}", attempts, e.toString());
                  }
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                reconnecting.set(false);
              }
            },
            "infera-relay-nats-connect");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void setup() throws Exception {
    Connection c = connection();
    boolean createdStream =
        JetStreamSetup.ensureStream(
            c, options.stream(), options.subjectPrefix(), options.streamLimits());
    boolean createdBucket = JetStreamSetup.ensureBucket(c, options.snapshotBucket());
    kv = c.keyValue(options.snapshotBucket());
    log.info(
        "relay jetstream ready stream={} created={} bucket={} created={}",
        options.stream(),
        createdStream,
        options.snapshotBucket(),
        createdBucket);
  }

  @Override
  public boolean connected() {
    Connection c = nc;
    return c != null && c.getStatus() == Connection.Status.CONNECTED;
  }

  @Override
  public long reconnects() {
    return reconnects.get();
  }

  @Override
  public CompletableFuture<Ack> publishAsync(Outbound m) {
    try {
      return js.publishAsync(message(m), publishOptions(m, ANY_LAST_SEQ))
          .thenApply(NatsStreamClient::ack);
    } catch (RuntimeException e) {
      // Closed connection, full reconnect buffer: a failed publish like any other.
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public Ack publish(Outbound m, long expectedLastSubjectSeq) throws Exception {
    try {
      return ack(js.publish(message(m), publishOptions(m, expectedLastSubjectSeq)));
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
        throw new WrongLastSequenceException(e.getMessage());
      }
      throw e;
    }
  }

  @Override
  public Optional<Stored> lastMessage(String subject) throws Exception {
    try {
      MessageInfo mi = jsm.getLastMessage(options.stream(), subject);
      return Optional.of(new Stored(mi.getSeq(), headers(mi.getHeaders()), data(mi.getData())));
    } catch (JetStreamApiException e) {
      if (e.getErrorCode() == 404 || e.getApiErrorCode() == NO_MESSAGE) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Override
  public void read(String subject, long from, long to, Consumer<Stored> each) throws Exception {
    if (from > to) {
      return;
    }
    OrderedConsumerContext occ =
        js.getStreamContext(options.stream())
            .createOrderedConsumer(
                new OrderedConsumerConfiguration()
                    .filterSubject(subject)
                    .deliverPolicy(DeliverPolicy.ByStartSequence)
                    .startSequence(Math.max(1, from)));
    Duration wait = options.publishTimeout();
    try (IterableConsumer it = occ.iterate()) {
      while (true) {
        Message m = it.nextMessage(wait);
        if (m == null) {
          // Nothing more (the rest aged out or was deleted meanwhile).
          return;
        }
        long seq = m.metaData().streamSequence();
        if (seq > to) {
          return;
        }
        each.accept(new Stored(seq, headers(m.getHeaders()), data(m.getData())));
        if (seq == to) {
          return;
        }
      }
    }
  }

  @Override
  public Optional<byte[]> getSnapshot(String key) throws Exception {
    KeyValueEntry e = bucket().get(key);
    if (e == null || e.getOperation() != KeyValueOperation.PUT || e.getValue() == null) {
      return Optional.empty();
    }
    return Optional.of(e.getValue());
  }

  @Override
  public long putSnapshot(String key, byte[] value) throws Exception {
    long max = connection().getServerInfo().getMaxPayload();
    if (max > 0 && value.length > max) {
      // Retried like any failure (a resync needs this snapshot), but say what to change.
      throw new IOException(
          "snapshot of "
              + value.length
              + " bytes exceeds the NATS server's max_payload of "
              + max
              + " bytes: raise max_payload in the nats-server configuration (up to 64 MB)");
    }
    return bucket().put(key, value);
  }

  @Override
  public void close() {
    closing = true;
    Connection c = nc;
    nc = null;
    if (c != null) {
      try {
        c.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private Connection connection() {
    Connection c = nc;
    if (c == null) {
      throw new IllegalStateException("not connected");
    }
    return c;
  }

  private KeyValue bucket() throws IOException {
    KeyValue b = kv;
    if (b == null) {
      b = connection().keyValue(options.snapshotBucket());
      kv = b;
    }
    return b;
  }

  private static Message message(Outbound m) {
    Headers h = new Headers();
    m.headers().forEach(h::put);
    return NatsMessage.builder().subject(m.subject()).headers(h).data(m.payload()).build();
  }

  private static PublishOptions publishOptions(Outbound m, long expectedLastSubjectSeq) {
    PublishOptions.Builder b = PublishOptions.builder().messageId(m.messageId());
    if (expectedLastSubjectSeq >= 0) {
      b.expectedLastSubjectSequence(expectedLastSubjectSeq);
    }
    return b.build();
  }

  private static Ack ack(PublishAck a) {
    return new Ack(a.getSeqno(), a.isDuplicate());
  }

  private static Map<String, String> headers(Headers h) {
    Map<String, String> out = new LinkedHashMap<>();
    if (h != null) {
      for (String k : h.keySet()) {
        out.put(k, h.getFirst(k));
      }
    }
    return out;
  }

  private static byte[] data(byte[] d) {
    return d == null ? new byte[0] : d;
  }

  /** The cause of a failed publish future, for logs. */
  static Throwable cause(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  /** jnats reports through this; the relay logs connection trouble itself. */
  private static final class QuietErrors implements ErrorListener {
    private final ConnectError why;

    QuietErrors(ConnectError why) {
      this.why = why;
    }

    @Override
    public void errorOccurred(Connection conn, String error) {
      log.warn("relay nats error={}", error);
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
      why.saw(exp);
      log.debug("relay nats exception={}", exp.toString());
    }
  }
}
