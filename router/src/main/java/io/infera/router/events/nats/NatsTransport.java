package io.infera.router.events.nats;

import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.Backoff;
import io.infera.router.events.Delivery;
import io.infera.router.events.EventSink;
import io.infera.router.events.EventTransport;
import io.infera.router.events.TransportStatus;
import io.infera.router.events.TransportThread;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.SourceId;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code nats}: KV events from the JetStream stream the relays publish to, with views seeded from
 * the relays' snapshots (docs/contracts.md, "NATS event plane").
 *
 * <p>Start: wait for discovery's first worker list, seed every rank of those workers from its
 * snapshot in the bucket, then consume the stream with an ordered consumer from the smallest
 * watermark + 1 (from the first message when a rank has no snapshot), skipping per source what its
 * snapshot covers ({@link NatsCursor}). {@link #warm()} turns true once the stream's last sequence
 * as of the start is processed and applied. Sources map to workers by the subject's worker token
 * ({@link NatsSources}): events of a worker discovery does not know are held briefly ({@link
 * NatsHold}) and delivered when it appears, after seeding its snapshot. A worker that left is
 * forgotten, and a snapshot written before it left never seeds it again ({@link SeedRules}).
 *
 * <p>Resync contract with the relay ({@link io.infera.router.nats.RelayProtocol}): a message with
 * header {@link io.infera.router.nats.NatsHeaders#RESYNC} (empty payload) means the relay wrote a
 * fresh snapshot of that source, whose watermark includes every event of the source it published
 * before the marker; the router seeds it. A snapshot never replaces a view with an older one.
 *
 * <p>Loss: stream messages gone before they were read (retention) make the sources they may have
 * belonged to degraded until a covering snapshot is seeded or their next engine sequence shows
 * nothing was missing; degraded sources are re-seeded as soon as the bucket has a newer snapshot.
 * Garbage subjects are counted and skipped; garbage payloads are the sink's decode errors.
 *
 * <p>Threading: every NATS call happens on the consumer thread ({@value #THREAD_NAME}) or jnats's
 * own threads; the connection reconnects forever with the {@link Backoff}, and after a reconnect
 * consumption resumes after the last processed stream sequence. {@link #workersChanged} only
 * publishes the latest list (applied within {@link NatsSettings#pollInterval()}); status getters
 * read volatile state and never block.
 */
public final class NatsTransport extends TransportThread implements EventTransport {

  /** Name of the consumer thread. */
  public static final String THREAD_NAME = "infera-nats-events";

  private static final Logger log = LoggerFactory.getLogger(NatsTransport.class);

  private final RouterConfig.Nats config;
  private final NatsSettings settings;
  private final NatsCursor cursor = new NatsCursor();
  private final NatsHold hold;
  private final NatsCounters counters;
  private final SnapshotWatch watch = new SnapshotWatch();
  private final NatsConnection connection;
  private final NatsConsumer consumer;
  private volatile EventSink sink;
  // Sessions failing in a row (connected, yet the stream or bucket cannot be read): since when, or
  // 0 when the last session got a consumer going; and the last failure.
  private volatile long failingSinceNanos;
  private volatile String lastFailure;

  /**
   * @param pageSize the index's block size: snapshots built with another are not seeded
   */
  public NatsTransport(RouterConfig.Nats config, int pageSize) {
    this(config, pageSize, NatsSettings.defaults());
  }

  public NatsTransport(RouterConfig.Nats config, int pageSize, NatsSettings settings) {
    this(
        config,
        pageSize,
        settings,
        new Backoff(settings.reconnectWait(), settings.reconnectWaitMax()));
  }

  private NatsTransport(
      RouterConfig.Nats config, int pageSize, NatsSettings settings, Backoff backoff) {
    super(THREAD_NAME, backoff);
    this.config = Objects.requireNonNull(config, "config");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.hold =
        new NatsHold(
            settings.holdMessages(), settings.holdBytes(), settings.holdTime(), System::nanoTime);
    this.counters = new NatsCounters(hold::dropped, hold::size, this::lagMessages);
    this.connection =
        new NatsConnection(
            config.url(),
            config.auth(),
            settings.requestTimeout(),
            backoff,
            counters,
            this::requestRestart,
            cursor::processed,
            this::running);
    this.consumer =
        new NatsConsumer(
            config,
            settings,
            pageSize,
            cursor,
            hold,
            counters,
            watch,
            new ToSink(),
            this::running,
            this::consuming);
  }

  @Override
  public synchronized void start(EventSink sink) {
    Objects.requireNonNull(sink, "sink");
    checkStartable("nats transport");
    this.sink = sink;
    startThread("nats transport");
  }

  @Override
  public void workersChanged(List<WorkerInfo> workers) {
    consumer.workersChanged(workers);
  }

  /**
   * True once discovery's first list was seen, its workers' snapshots seeded, and the stream read
   * (and applied) up to its last sequence as of the start. Stays true through reconnects.
   */
  @Override
  public boolean warm() {
    return consumer.warm();
  }

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    counters.bindTo(registry);
    bindCrashes(registry, name(), this);
  }

  @Override
  public void close() {
    consumer.requestRestart();
    Duration join =
        settings.pollInterval().plus(settings.requestTimeout()).plus(Duration.ofSeconds(1));
    Stopped stopped = stopThread(join);
    if (stopped == Stopped.ALREADY) {
      return;
    }
    if (stopped == Stopped.STILL_RUNNING) {
      log.warn("nats transport consumer did not stop thread={}", THREAD_NAME);
      thread().interrupt();
    }
    log.info("nats transport closed processed_seq={}", cursor.processed());
  }

  // ---------------------------------------------------------------- status (any thread)

  /**
   * NATS is unreachable ({@code NatsUnreachable}: not connected), or reachable while every session
   * fails ({@code StreamUnreadable}: the stream or the bucket cannot be read); null otherwise.
   */
  @Override
  public Outage outage() {
    if (!running()) {
      return null;
    }
    String last = lastFailure;
    if (!connection.connected()) {
      return new Outage(
          "NatsUnreachable",
          connection.downSinceNanos(),
          "cannot connect to " + config.url() + (last == null ? "" : ": " + last));
    }
    long failing = failingSinceNanos;
    if (failing != 0) {
      return new Outage(
          "StreamUnreadable",
          failing,
          "cannot read stream " + config.stream() + (last == null ? "" : ": " + last));
    }
    return null;
  }

  /** Why {@link #warm()} is false, or null. */
  public String notWarmReason() {
    if (consumer.warm()) {
      return null;
    }
    if (!running()) {
      return "nats transport not running";
    }
    long targetSeq = consumer.targetSeq();
    if (targetSeq < 0) {
      return connection.connected()
          ? "waiting for discovery and snapshots"
          : "connecting to " + config.url() + " (stream " + config.stream() + ")";
    }
    if (!consumer.caughtUp()) {
      return "catching up on stream "
          + config.stream()
          + ": processed "
          + cursor.processed()
          + " of "
          + targetSeq;
    }
    return "applying the caught-up events";
  }

  /** The stream position and readiness. */
  public NatsStatus streamStatus() {
    return new NatsStatus(
        config.url(),
        config.stream(),
        connection.connected(),
        consumer.caughtUp(),
        consumer.warm(),
        cursor.processed(),
        consumer.streamFirstSeq(),
        consumer.lastSeq(),
        consumer.targetSeq(),
        hold.size(),
        notWarmReason(),
        crashes(),
        threadProblem());
  }

  /** Readiness, the {@code nats} status object, and every source's stream position and health. */
  @Override
  public TransportStatus status() {
    NatsStatus st = streamStatus();
    Map<SourceId, TransportStatus.Source> known = new LinkedHashMap<>();
    for (NatsSourceStatus s : sources()) {
      known.put(new SourceId(s.worker(), s.rank()), s.toSource());
    }
    String problem = threadProblem();
    return new TransportStatus(
        name(),
        st.warm(),
        problem != null ? problem : st.notWarmReason(),
        st.fields(counters),
        new TransportStatus.Sources(known, NatsSourceStatus.UNSEEN));
  }

  /** Every source known: the discovered workers' ranks and the ranks that sent events. */
  public List<NatsSourceStatus> sources() {
    long now = System.currentTimeMillis();
    long lag = lagMessages();
    List<NatsSourceStatus> out = new ArrayList<>();
    for (NatsCursor.Source s : cursor.sources()) {
      long created = s.snapshotCreatedMillis;
      String key = NatsSources.snapshotKey(s.pool, s.id);
      SnapshotWatch.Meta meta = key == null ? null : watch.latest(key);
      if (meta != null) {
        created = Math.max(created, meta.createdMillis());
      }
      NatsCursor.Degraded d = s.degraded;
      double lagSeconds = s.lagSeconds;
      out.add(
          new NatsSourceStatus(
              s.id.worker(),
              s.id.dpRank(),
              s.lastEngineSeq == KvEventMessage.NO_SEQ ? -1 : s.lastEngineSeq,
              s.lastStreamSeq,
              s.messages,
              s.covered,
              lag,
              Double.isNaN(lagSeconds) ? null : round(lagSeconds),
              d != null,
              d == null ? null : d.label(),
              s.snapshotStreamSeq,
              created > 0 ? round(Math.max(0, now - created) / 1000.0) : null));
    }
    out.sort(
        Comparator.comparing(NatsSourceStatus::worker).thenComparingInt(NatsSourceStatus::rank));
    return List.copyOf(out);
  }

  /** The transport's counters. Any thread. */
  public NatsCounters counters() {
    return counters;
  }

  /** Stream messages not processed yet. */
  public long lagMessages() {
    return Math.max(0, consumer.lastSeq() - cursor.processed());
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }

  /** A consumer is under way: a crash is over, sessions work again. Consumer thread. */
  private void consuming() {
    failingSinceNanos = 0;
    recovered();
  }

  private void requestRestart() {
    consumer.requestRestart();
  }

  /** The sink given at start, to the consumer built before it. */
  private final class ToSink implements EventSink {
    @Override
    public void accept(Delivery d) {
      sink.accept(d);
    }

    @Override
    public CompletableFuture<Void> flush() {
      return sink.flush();
    }
  }

  // ---------------------------------------------------------------- consumer thread

  @Override
  protected void beforeLoop() {
    consumer.begin();
  }

  @Override
  protected boolean step() throws Exception {
    return consumer.session(connection.get());
  }

  @Override
  protected boolean failed(Exception e, int failures, Duration pause) {
    counters.errors.incrementAndGet();
    lastFailure = e.toString();
    if (failingSinceNanos == 0) {
      failingSinceNanos = System.nanoTime() | 1;
    }
    log.warn(
        "nats transport failed, retrying url={} attempt={} retry_ms={} error={}",
        config.url(),
        failures,
        pause.toMillis(),
        e.toString());
    log.debug("nats transport failure", e);
    return true;
  }

  @Override
  protected void crashed(Throwable e) {
    counters.errors.incrementAndGet();
    lastFailure = e.toString();
    log.error(
        "nats transport consumer crashed, restarting it after a back-off crashes={}"
            + " processed_seq={}",
        crashes(),
        cursor.processed(),
        e);
  }

  @Override
  protected void afterLoop() {
    connection.close();
  }
}
