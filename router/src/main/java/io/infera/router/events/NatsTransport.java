package io.infera.router.events;

import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.JetStreamSetup;
import io.infera.router.nats.NatsHeaders;
import io.infera.router.nats.NatsKeys;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ConsumeOptions;
import io.nats.client.ErrorListener;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStreamOptions;
import io.nats.client.JetStreamSubscription;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueOptions;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.OrderedConsumerContext;
import io.nats.client.StreamContext;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatchOption;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.StreamInfo;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsJetStreamMetaData;
import io.nats.client.impl.NatsKeyValueWatchSubscription;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code nats}: KV events from the JetStream stream the relays publish to, with views seeded from
 * the relays' snapshots (DESIGN.md §5).
 *
 * <p>Start: wait for discovery's first worker list, seed every rank of those workers from its
 * snapshot in the bucket, then consume the stream with an ordered consumer from the smallest
 * watermark + 1 (from the first message when a rank has no snapshot), skipping per source what its
 * snapshot covers ({@link NatsCursor}). {@link #warm()} turns true once the stream's last sequence
 * as of the start is processed and applied. Sources map to workers by the subject's worker token:
 * events of a worker discovery does not know are held briefly ({@link NatsHold}) and delivered when
 * it appears, after seeding its snapshot. A worker that left is forgotten, and a snapshot written
 * before it left never seeds it again (only a newer one does, if it comes back).
 *
 * <p>Resync contract with the relay: a message on an event subject with header {@link
 * EventSubjects#HEADER_RESYNC} (empty payload) means the relay wrote a fresh snapshot of that
 * source, whose watermark includes every event of the source it published before the marker; the
 * router seeds it. A snapshot never replaces a view with an older one (see {@link
 * NatsCursor#seedable}).
 *
 * <p>Loss: stream messages gone before they were read (retention) make the sources they may have
 * belonged to degraded until a covering snapshot is seeded or their next engine sequence shows
 * nothing was missing; degraded sources are re-seeded as soon as the bucket has a newer snapshot.
 * Garbage subjects are counted and skipped; garbage payloads are the sink's decode errors.
 *
 * <p>Threading: every NATS call happens on the consumer thread ({@value #THREAD_NAME}) or jnats's
 * own threads; the connection reconnects forever with capped exponential back-off and jitter, and
 * after a reconnect consumption resumes after the last processed stream sequence. {@link
 * #workersChanged} only publishes the latest list (applied within {@link Settings#pollInterval()});
 * status getters read volatile state and never block.
 */
public final class NatsTransport implements EventTransport {

  /** Name of the consumer thread. */
  public static final String THREAD_NAME = "infera-nats-events";

  private static final Logger log = LoggerFactory.getLogger(NatsTransport.class);
  private static final int SUBJECT_CACHE_MAX = 4096;
  private static final int PURGE_MARKERS_MAX = 10_000;
  private static final long REPAIR_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * Tuning, all defaulted by {@link #defaults()}.
   *
   * @param pollInterval longest wait for a message; bounds how late a worker change is applied
   * @param reconnectWait first back-off after a failed connect or session (and jnats reconnects)
   * @param reconnectWaitMax back-off cap
   * @param requestTimeout JetStream API and snapshot reads
   * @param streamCheckInterval how often the stream's state is read (lag, retention, stalls)
   * @param stallTimeout the consumer is recreated when it delivers nothing this long while the
   *     stream has unread messages
   * @param holdMessages events of undiscovered workers held at most
   * @param holdBytes payload bytes of undiscovered workers held at most
   * @param holdTime how long such events are held
   * @param consumerBatch messages the ordered consumer asks for at once
   * @param streamLimits the stream's limits when the router creates it
   */
  public record Settings(
      Duration pollInterval,
      Duration reconnectWait,
      Duration reconnectWaitMax,
      Duration requestTimeout,
      Duration streamCheckInterval,
      Duration stallTimeout,
      int holdMessages,
      long holdBytes,
      Duration holdTime,
      int consumerBatch,
      JetStreamSetup.Limits streamLimits) {

    public Settings {
      positive(pollInterval, "pollInterval");
      positive(reconnectWait, "reconnectWait");
      positive(reconnectWaitMax, "reconnectWaitMax");
      positive(requestTimeout, "requestTimeout");
      positive(streamCheckInterval, "streamCheckInterval");
      positive(stallTimeout, "stallTimeout");
      positive(holdTime, "holdTime");
      Objects.requireNonNull(streamLimits, "streamLimits");
      if (reconnectWaitMax.compareTo(reconnectWait) < 0) {
        throw new IllegalArgumentException("reconnectWaitMax must be >= reconnectWait");
      }
      if (holdMessages < 0 || holdBytes < 0) {
        throw new IllegalArgumentException("holdMessages and holdBytes must be >= 0");
      }
      if (consumerBatch < 1) {
        throw new IllegalArgumentException("consumerBatch must be >= 1");
      }
    }

    /**
     * 100 ms poll, back-off 250 ms … 10 s, 10 s requests, stream check every 2 s, stall after 10 s,
     * hold 10,000 messages / 64 MiB / 30 s, batches of 1,000, default stream limits.
     */
    public static Settings defaults() {
      return new Settings(
          Duration.ofMillis(100),
          Duration.ofMillis(250),
          Duration.ofSeconds(10),
          Duration.ofSeconds(10),
          Duration.ofSeconds(2),
          Duration.ofSeconds(10),
          10_000,
          64L << 20,
          Duration.ofSeconds(30),
          1_000,
          JetStreamSetup.Limits.defaults());
    }

    public Settings withHold(int messages, Duration time) {
      return new Settings(
          pollInterval,
          reconnectWait,
          reconnectWaitMax,
          requestTimeout,
          streamCheckInterval,
          stallTimeout,
          messages,
          holdBytes,
          time,
          consumerBatch,
          streamLimits);
    }

    private static void positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, got " + d);
      }
    }
  }

  /**
   * One source (worker, rank) as the admin status shows it.
   *
   * @param lastEngineSeq the engine sequence of the last batch applied or seeded, -1 when none
   * @param lastStreamSeq the stream sequence of the last message applied (or the seeded snapshot's
   *     watermark), 0 when none
   * @param messages messages delivered for this source
   * @param coveredSkipped messages skipped because a seeded snapshot already included them
   * @param lagMessages stream messages not yet processed (the same for every source)
   * @param lagSeconds from the stream timestamp of the source's last message to its delivery
   * @param degradedReason {@code events_lost}, {@code engine_gap} or {@code resync_failed}; null
   *     when healthy
   * @param snapshotStreamSeq the watermark of the seeded snapshot, -1 when none was seeded
   * @param snapshotAgeSeconds seconds since the source's newest snapshot in the bucket was written,
   *     null when it has none
   */
  public record SourceStatus(
      WorkerId worker,
      int rank,
      long lastEngineSeq,
      long lastStreamSeq,
      long messages,
      long coveredSkipped,
      long lagMessages,
      Double lagSeconds,
      boolean degraded,
      String degradedReason,
      long snapshotStreamSeq,
      Double snapshotAgeSeconds) {}

  /**
   * The transport as a whole.
   *
   * @param processedSeq the last stream sequence processed
   * @param targetSeq the stream's last sequence when the router started: warm once processed
   * @param heldMessages events of undiscovered workers held now
   * @param notWarmReason why {@link #warm()} is false, null when it is true
   */
  public record Status(
      String url,
      String stream,
      boolean connected,
      boolean caughtUp,
      boolean warm,
      long processedSeq,
      long streamFirstSeq,
      long streamLastSeq,
      long targetSeq,
      int heldMessages,
      String notWarmReason) {}

  private record Pending(long generation, List<WorkerInfo> workers) {}

  private record SnapshotMeta(long revision, long createdMillis) {}

  private final RouterConfig.Nats config;
  private final int pageSize;
  private final Settings settings;
  private final Backoff backoff;
  private final AtomicReference<Pending> pending = new AtomicReference<>(new Pending(0, List.of()));

  private final AtomicLong messages = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong garbageSubjects = new AtomicLong();
  private final AtomicLong badHeaders = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong coveredSkipped = new AtomicLong();
  private final AtomicLong resyncMarkers = new AtomicLong();
  private final AtomicLong resyncs = new AtomicLong();
  private final AtomicLong snapshotsSeeded = new AtomicLong();
  private final AtomicLong badSnapshots = new AtomicLong();
  private final AtomicLong staleSnapshots = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong consumerRestarts = new AtomicLong();
  private final AtomicLong lostMessages = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();

  // Consumer-thread state.
  private final NatsCursor cursor = new NatsCursor();
  private final NatsHold hold;
  private final Map<WorkerId, Integer> discovered = new HashMap<>();
  private final Map<WorkerId, Long> purgedAtRevision =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<WorkerId, Long> eldest) {
          return size() > PURGE_MARKERS_MAX;
        }
      };
  private final Map<String, EventSubjects.Source> subjects = new HashMap<>();
  private long appliedGeneration;
  private boolean initialized;
  private ZonedDateTime streamCreated;
  private Connection conn;
  private KeyValue kv;
  private StreamContext stream;
  private long startedNanos;
  private long lastRepairNanos;
  private long lastStreamCheckNanos;
  private long lastMessageNanos;

  // Shared state.
  private final Map<String, SnapshotMeta> latestSnapshots = new ConcurrentHashMap<>();
  private final AtomicLong maxSnapshotRevision = new AtomicLong();
  private volatile long targetSeq = -1;
  private volatile long streamFirstSeq;
  private volatile long streamLastSeq;
  private volatile boolean connected;
  private volatile boolean caughtUp;
  private volatile boolean warm;
  private volatile boolean running;
  private volatile boolean restartRequested;
  private volatile EventSink sink;
  private Thread thread;
  private boolean closed;

  /**
   * @param pageSize the index's block size: snapshots built with another are not seeded
   */
  public NatsTransport(RouterConfig.Nats config, int pageSize) {
    this(config, pageSize, Settings.defaults());
  }

  public NatsTransport(RouterConfig.Nats config, int pageSize, Settings settings) {
    this.config = Objects.requireNonNull(config, "config");
    this.pageSize = pageSize;
    this.settings = Objects.requireNonNull(settings, "settings");
    this.backoff = new Backoff(settings.reconnectWait(), settings.reconnectWaitMax());
    this.hold =
        new NatsHold(
            settings.holdMessages(), settings.holdBytes(), settings.holdTime(), System::nanoTime);
  }

  @Override
  public synchronized void start(EventSink sink) {
    Objects.requireNonNull(sink, "sink");
    if (closed) {
      throw new IllegalStateException("nats transport is closed");
    }
    if (thread != null) {
      throw new IllegalStateException("nats transport already started");
    }
    this.sink = sink;
    running = true;
    thread = new Thread(this::run, THREAD_NAME);
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void workersChanged(List<WorkerInfo> workers) {
    List<WorkerInfo> copy = List.copyOf(workers);
    pending.updateAndGet(p -> new Pending(p.generation() + 1, copy));
  }

  /**
   * True once discovery's first list was seen, its workers' snapshots seeded, and the stream read
   * (and applied) up to its last sequence as of the start. Stays true through reconnects.
   */
  @Override
  public boolean warm() {
    return warm;
  }

  @Override
  public String name() {
    return "nats";
  }

  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      running = false;
      restartRequested = true;
      t = thread;
    }
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join(settings.pollInterval().toMillis() + settings.requestTimeout().toMillis() + 1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (t.isAlive()) {
        log.warn("nats transport consumer did not stop thread={}", t.getName());
        t.interrupt();
      }
    }
    log.info("nats transport closed processed_seq={}", cursor.processed());
  }

  // ---------------------------------------------------------------- status (any thread)

  /** Why {@link #warm()} is false, or null. */
  public String notWarmReason() {
    if (warm) {
      return null;
    }
    if (!running) {
      return "nats transport not running";
    }
    if (targetSeq < 0) {
      return connected
          ? "waiting for discovery and snapshots"
          : "connecting to " + config.url() + " (stream " + config.stream() + ")";
    }
    if (!caughtUp) {
      return "catching up on stream "
          + config.stream()
          + ": processed "
          + cursor.processed()
          + " of "
          + targetSeq;
    }
    return "applying the caught-up events";
  }

  public Status status() {
    return new Status(
        config.url(),
        config.stream(),
        connected,
        caughtUp,
        warm,
        cursor.processed(),
        streamFirstSeq,
        streamLastSeq,
        targetSeq,
        hold.size(),
        notWarmReason());
  }

  /** Every source known: the discovered workers' ranks and the ranks that sent events. */
  public List<SourceStatus> sources() {
    long now = System.currentTimeMillis();
    long lag = Math.max(0, streamLastSeq - cursor.processed());
    List<SourceStatus> out = new ArrayList<>();
    for (NatsCursor.Source s : cursor.sources()) {
      long created = s.snapshotCreatedMillis;
      SnapshotMeta meta = latestSnapshots.get(NatsKeys.snapshotKey(s.id.worker(), s.id.dpRank()));
      if (meta != null) {
        created = Math.max(created, meta.createdMillis());
      }
      NatsCursor.Degraded d = s.degraded;
      double lagSeconds = s.lagSeconds;
      out.add(
          new SourceStatus(
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
    out.sort(Comparator.comparing(SourceStatus::worker).thenComparingInt(SourceStatus::rank));
    return List.copyOf(out);
  }

  /** Stream messages received (duplicates and garbage included). */
  public long messagesReceived() {
    return messages.get();
  }

  /** Payload bytes received. */
  public long bytesReceived() {
    return bytes.get();
  }

  /** Messages whose subject names no worker and rank: skipped. */
  public long garbageSubjects() {
    return garbageSubjects.get();
  }

  /** Messages whose engine-seq header was not a number (delivered without a sequence). */
  public long badHeaders() {
    return badHeaders.get();
  }

  /** Messages received again after a consumer restart: skipped. */
  public long duplicates() {
    return duplicates.get();
  }

  /** Messages skipped because their source's seeded snapshot included them. */
  public long coveredSkipped() {
    return coveredSkipped.get();
  }

  /** Resync markers received. */
  public long resyncMarkers() {
    return resyncMarkers.get();
  }

  /** Resync markers that led to a seeded snapshot. */
  public long resyncs() {
    return resyncs.get();
  }

  /** Snapshots seeded (start, discovery, resync, loss, repair). */
  public long snapshotsSeeded() {
    return snapshotsSeeded.get();
  }

  /** Snapshots that could not be decoded or were built for another block size or stream. */
  public long badSnapshots() {
    return badSnapshots.get();
  }

  /** Snapshots not seeded because they predate events already applied. */
  public long staleSnapshots() {
    return staleSnapshots.get();
  }

  /** Times the connection came back after a loss. */
  public long reconnects() {
    return reconnects.get();
  }

  /** Consumers recreated because they stalled. */
  public long consumerRestarts() {
    return consumerRestarts.get();
  }

  /** Stream messages gone before they were read (retention). */
  public long lostMessages() {
    return lostMessages.get();
  }

  /** Events of undiscovered workers dropped (held too long, over the bound, or worker left). */
  public long undiscoveredDropped() {
    return hold.dropped();
  }

  /** Events held for workers discovery does not know yet. */
  public int heldMessages() {
    return hold.size();
  }

  /** Unexpected failures (sessions that failed, sink errors). */
  public long errors() {
    return errors.get();
  }

  /** Stream messages not processed yet. */
  public long lagMessages() {
    return Math.max(0, streamLastSeq - cursor.processed());
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }

  // ---------------------------------------------------------------- consumer thread

  private void run() {
    startedNanos = System.nanoTime();
    log.info(
        "nats transport started url={} stream={} prefix={} bucket={}",
        config.url(),
        config.stream(),
        config.subjectPrefix(),
        config.snapshotBucket());
    int failures = 0;
    while (running) {
      try {
        if (conn == null || conn.getStatus() == Connection.Status.CLOSED) {
          conn = connect();
        }
        if (session()) {
          failures = 0;
        }
      } catch (InterruptedException e) {
        if (!running) {
          break;
        }
      } catch (Exception e) {
        if (!running) {
          break;
        }
        errors.incrementAndGet();
        failures++;
        Duration wait = backoff.delay(failures);
        log.warn(
            "nats transport failed, retrying url={} attempt={} retry_ms={} error={}",
            config.url(),
            failures,
            wait.toMillis(),
            e.toString());
        log.debug("nats transport failure", e);
        try {
          Thread.sleep(wait.toMillis());
        } catch (InterruptedException ie) {
          if (!running) {
            break;
          }
        }
      }
    }
    closeConnection();
  }

  private Connection connect() throws Exception {
    Options options =
        new Options.Builder()
            .server(config.url())
            .connectionName("infera-router")
            .maxReconnects(-1)
            .reconnectDelayHandler(tries -> backoff.delay((int) Math.min(tries, 30)))
            .connectionTimeout(settings.requestTimeout())
            .connectionListener(this::onConnectionEvent)
            .errorListener(new LoggingErrorListener())
            .build();
    Connection c = Nats.connect(options);
    connected = true;
    log.info("nats connected url={} server={}", config.url(), c.getConnectedUrl());
    return c;
  }

  private void onConnectionEvent(Connection c, ConnectionListener.Events event) {
    switch (event) {
      case CONNECTED -> connected = true;
      case DISCONNECTED -> {
        // Also reported for each failed first connect: log only the loss of a connection.
        if (connected && running) {
          log.warn("nats disconnected url={}, reconnecting", config.url());
        }
        connected = false;
      }
      case RECONNECTED -> {
        connected = true;
        reconnects.incrementAndGet();
        // Resume from the last processed sequence on a fresh consumer.
        restartRequested = true;
        log.info("nats reconnected url={} processed_seq={}", config.url(), cursor.processed());
      }
      case CLOSED -> connected = false;
      case LAME_DUCK -> log.warn("nats server entering lame duck mode url={}", config.url());
      default -> log.debug("nats connection event={}", event);
    }
  }

  private void closeConnection() {
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
    connected = false;
  }

  /**
   * One consumer's life: set up, (first time) seed and pick the start, consume until a reconnect or
   * a stall asks for a fresh consumer.
   *
   * @return true when it consumed (the failure count starts over)
   */
  private boolean session() throws Exception {
    restartRequested = false;
    JetStreamSetup.ensureStream(
        conn, config.stream(), config.subjectPrefix(), settings.streamLimits());
    JetStreamSetup.ensureBucket(conn, config.snapshotBucket());
    JetStreamOptions jso =
        JetStreamOptions.builder().requestTimeout(settings.requestTimeout()).build();
    kv =
        conn.keyValue(
            config.snapshotBucket(),
            KeyValueOptions.builder().jsRequestTimeout(settings.requestTimeout()).build());
    stream = conn.getStreamContext(config.stream(), jso);
    NatsKeyValueWatchSubscription watch = watchSnapshots();
    try {
      StreamInfo info = readStream();
      if (!initialized) {
        if (!awaitFirstWorkers()) {
          return false;
        }
        start(info);
      } else if (!info.getCreateTime().equals(streamCreated)
          || info.getStreamState().getLastSequence() < cursor.processed()) {
        long next = Math.max(1, info.getStreamState().getFirstSequence());
        log.warn(
            "nats stream was recreated, reading it from its start stream={} processed_seq={}"
                + " first_seq={} last_seq={}",
            config.stream(),
            cursor.processed(),
            info.getStreamState().getFirstSequence(),
            info.getStreamState().getLastSequence());
        cursor.streamReset(next);
      }
      streamCreated = info.getCreateTime();
      long first = info.getStreamState().getFirstSequence();
      if (first > cursor.processed() + 1) {
        onLoss(cursor.processed() + 1, first - 1);
        cursor.advance(first - 1);
      }
      consume();
      return true;
    } finally {
      if (watch != null) {
        try {
          watch.unsubscribe();
        } catch (RuntimeException e) {
          log.debug("nats snapshot watch unsubscribe failed", e);
        }
      }
    }
  }

  private StreamInfo readStream() throws Exception {
    StreamInfo info = stream.getStreamInfo();
    streamFirstSeq = info.getStreamState().getFirstSequence();
    streamLastSeq = info.getStreamState().getLastSequence();
    return info;
  }

  private boolean awaitFirstWorkers() throws InterruptedException {
    long logAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (pending.get().generation() == 0) {
      if (!running || restartRequested) {
        return false;
      }
      if (System.nanoTime() - logAt > 0) {
        log.info("nats transport waiting for discovery's first worker list");
        logAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      }
      Thread.sleep(20);
    }
    return true;
  }

  /** First session: seed the discovered workers' ranks and choose where to start. */
  private void start(StreamInfo info) throws Exception {
    streamCreated = info.getCreateTime();
    applyPendingWorkers();
    List<SourceId> expected = new ArrayList<>();
    discovered.forEach(
        (w, dp) -> {
          for (int r = 0; r < dp; r++) {
            expected.add(new SourceId(w, r));
          }
        });
    int seeded = 0;
    for (SourceId id : expected) {
      if (seedFromBucket(id, "start")) {
        seeded++;
      }
    }
    long last = info.getStreamState().getLastSequence();
    long startSeq = cursor.startSeq(expected, last);
    cursor.startAt(startSeq);
    targetSeq = last;
    initialized = true;
    log.info(
        "nats transport start stream={} sources={} seeded={} start_seq={} first_seq={}"
            + " target_seq={} elapsed_ms={}",
        config.stream(),
        expected.size(),
        seeded,
        startSeq,
        info.getStreamState().getFirstSequence(),
        last,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
  }

  private NatsKeyValueWatchSubscription watchSnapshots() {
    KeyValueWatcher watcher =
        new KeyValueWatcher() {
          @Override
          public void watch(KeyValueEntry e) {
            if (e.getOperation() == KeyValueOperation.PUT) {
              latestSnapshots.put(
                  e.getKey(),
                  new SnapshotMeta(e.getRevision(), e.getCreated().toInstant().toEpochMilli()));
            } else {
              latestSnapshots.remove(e.getKey());
            }
            maxSnapshotRevision.accumulateAndGet(e.getRevision(), Math::max);
          }

          @Override
          public void endOfData() {}
        };
    try {
      return kv.watchAll(watcher, KeyValueWatchOption.META_ONLY);
    } catch (Exception e) {
      // Without it, snapshot ages are those of the seeded snapshots and repairs wait for resyncs.
      errors.incrementAndGet();
      log.warn("nats snapshot watch failed, continuing without error={}", e.toString());
      return null;
    }
  }

  private void consume() throws Exception {
    long from = cursor.processed() + 1;
    OrderedConsumerContext ctx =
        stream.createOrderedConsumer(
            new OrderedConsumerConfiguration()
                .filterSubject(EventSubjects.wildcard(config.subjectPrefix()))
                .deliverPolicy(DeliverPolicy.ByStartSequence)
                .startSequence(from));
    IterableConsumer it =
        ctx.iterate(ConsumeOptions.builder().batchSize(settings.consumerBatch()).build());
    log.info("nats consumer started stream={} from_seq={}", config.stream(), from);
    lastMessageNanos = System.nanoTime();
    lastStreamCheckNanos = lastMessageNanos;
    try {
      checkCaughtUp(-1);
      while (running && !restartRequested) {
        applyPendingWorkers();
        housekeeping(it);
        Message m = it.nextMessage(settings.pollInterval());
        if (m == null) {
          checkCaughtUp(-1);
          continue;
        }
        lastMessageNanos = System.nanoTime();
        if (m.isJetStream()) {
          handle(m);
        }
      }
    } finally {
      try {
        it.stop();
        it.close();
      } catch (Exception e) {
        log.debug("nats consumer close failed", e);
      }
    }
  }

  private void housekeeping(IterableConsumer it) throws Exception {
    long now = System.nanoTime();
    if (now - lastRepairNanos >= REPAIR_INTERVAL_NANOS) {
      lastRepairNanos = now;
      hold.expire();
      repairDegraded();
    }
    if (now - lastStreamCheckNanos < settings.streamCheckInterval().toNanos()) {
      return;
    }
    lastStreamCheckNanos = now;
    StreamInfo info = readStream();
    long idle = now - lastMessageNanos;
    long first = info.getStreamState().getFirstSequence();
    long last = info.getStreamState().getLastSequence();
    if (!info.getCreateTime().equals(streamCreated) || last < cursor.processed()) {
      restartRequested = true;
      return;
    }
    if (idle < settings.streamCheckInterval().toNanos()) {
      return;
    }
    // Idle for a while: nothing buffered is on its way, so the stream's state is the truth.
    if (first > cursor.processed() + 1) {
      onLoss(cursor.processed() + 1, first - 1);
      cursor.advance(first - 1);
    }
    if (last <= cursor.processed()) {
      checkCaughtUp(0);
      return;
    }
    // Behind the stream's end yet idle: interior deletions, or a consumer that lost its way.
    long pending = -1;
    try {
      pending = it.getConsumerInfo().getNumPending();
    } catch (Exception e) {
      log.debug("nats consumer info failed", e);
    }
    if (pending == 0) {
      checkCaughtUp(0);
    } else if (idle >= settings.stallTimeout().toNanos()) {
      consumerRestarts.incrementAndGet();
      log.warn(
          "nats consumer stalled, recreating it processed_seq={} stream_last_seq={} pending={}"
              + " idle_ms={}",
          cursor.processed(),
          last,
          pending,
          TimeUnit.NANOSECONDS.toMillis(idle));
      restartRequested = true;
    }
  }

  private void checkCaughtUp(long pendingAfter) {
    if (caughtUp || targetSeq < 0) {
      return;
    }
    if (cursor.processed() >= targetSeq || pendingAfter == 0) {
      caughtUp = true;
      log.info(
          "nats transport caught up stream={} processed_seq={} target_seq={} seeded={}"
              + " elapsed_ms={}",
          config.stream(),
          cursor.processed(),
          targetSeq,
          snapshotsSeeded.get(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
      sink.flush().thenRun(() -> warm = true);
    }
  }

  private void handle(Message m) {
    NatsJetStreamMetaData md = m.metaData();
    long seq = md.streamSequence();
    byte[] data = m.getData() == null ? new byte[0] : m.getData();
    messages.incrementAndGet();
    bytes.addAndGet(data.length);
    if (!cursor.isNew(seq)) {
      duplicates.incrementAndGet();
      return;
    }
    long gap = cursor.gapBefore(seq);
    if (gap > 0) {
      onLoss(seq - gap, seq - 1);
    }
    cursor.advance(seq);
    long pendingAfter = md.pendingCount();
    streamLastSeq = Math.max(streamLastSeq, seq + pendingAfter);
    try {
      EventSubjects.Source src = source(m.getSubject());
      if (src == null) {
        return;
      }
      SourceId id = new SourceId(src.worker(), src.rank());
      Headers h = m.getHeaders();
      if (h != null && h.containsKey(NatsHeaders.RESYNC)) {
        onResync(id, seq);
        return;
      }
      long engineSeq;
      try {
        engineSeq = NatsHeaders.engineSeq(h == null ? null : h.getFirst(NatsHeaders.ENGINE_SEQ));
      } catch (IllegalArgumentException e) {
        badHeaders.incrementAndGet();
        log.debug("nats bad header stream_seq={} error={}", seq, e.getMessage());
        engineSeq = KvEventMessage.NO_SEQ;
      }
      long ts = md.timestamp() == null ? 0 : md.timestamp().toInstant().toEpochMilli();
      if (!discovered.containsKey(id.worker())) {
        hold.add(id, seq, engineSeq, data, ts);
        return;
      }
      deliver(id, seq, engineSeq, data, ts);
    } finally {
      checkCaughtUp(pendingAfter);
    }
  }

  /** The source of a subject, or null (counted) when it names none. */
  private EventSubjects.Source source(String subject) {
    EventSubjects.Source src = subjects.get(subject);
    if (src != null) {
      return src;
    }
    try {
      src = EventSubjects.parse(config.subjectPrefix(), subject);
    } catch (IllegalArgumentException e) {
      long n = garbageSubjects.incrementAndGet();
      if (n == 1 || Long.bitCount(n) == 1) {
        log.warn("nats garbage subject skipped count={} error={}", n, e.getMessage());
      }
      return null;
    }
    if (subjects.size() >= SUBJECT_CACHE_MAX) {
      subjects.clear();
    }
    subjects.put(subject, src);
    return src;
  }

  private void deliver(SourceId id, long seq, long engineSeq, byte[] payload, long tsMillis) {
    double lag =
        tsMillis <= 0 ? Double.NaN : Math.max(0, System.currentTimeMillis() - tsMillis) / 1000.0;
    if (cursor.admit(id, seq, engineSeq, lag) == NatsCursor.Verdict.COVERED) {
      coveredSkipped.incrementAndGet();
      return;
    }
    try {
      sink.accept(
          new Delivery.Streamed(
              id.worker(), id.dpRank(), seq, NatsFrames.frames(engineSeq, payload)));
    } catch (RuntimeException e) {
      errors.incrementAndGet();
      log.warn("nats event sink failed, message dropped source={} stream_seq={}", id, seq, e);
    }
  }

  private void onResync(SourceId id, long seq) {
    resyncMarkers.incrementAndGet();
    if (!discovered.containsKey(id.worker())) {
      // Seeded from the bucket when (if) the worker appears.
      log.debug("nats resync marker of an undiscovered worker source={} stream_seq={}", id, seq);
      return;
    }
    NatsCursor.Source s = cursor.register(id);
    if (seq <= s.coveredThrough) {
      return;
    }
    boolean ok;
    try {
      ok = seedFromBucket(id, "resync");
    } catch (Exception e) {
      ok = false;
      log.warn("nats resync snapshot read failed source={} error={}", id, e.toString());
    }
    if (ok) {
      resyncs.incrementAndGet();
    } else {
      cursor.degrade(id, NatsCursor.Degraded.RESYNC_FAILED);
      log.warn("nats resync marker without a usable snapshot source={} stream_seq={}", id, seq);
    }
  }

  private void onLoss(long from, long to) {
    long n = to - from + 1;
    lostMessages.addAndGet(n);
    List<SourceId> suspects = cursor.lost(from, to);
    log.warn(
        "nats stream messages lost before they were read stream={} from_seq={} to_seq={}"
            + " count={} suspect_sources={}",
        config.stream(),
        from,
        to,
        n,
        suspects.size());
    for (SourceId id : suspects) {
      if (discovered.containsKey(id.worker())) {
        try {
          seedFromBucket(id, "loss");
        } catch (Exception e) {
          log.warn("nats snapshot read failed source={} error={}", id, e.toString());
        }
      }
    }
  }

  /** Degraded sources whose key has a newer snapshot than the one tried last: seed it. */
  private void repairDegraded() throws Exception {
    for (NatsCursor.Source s : cursor.sources()) {
      if (s.degraded == null || !discovered.containsKey(s.id.worker())) {
        continue;
      }
      SnapshotMeta meta = latestSnapshots.get(NatsKeys.snapshotKey(s.id.worker(), s.id.dpRank()));
      if (meta != null && meta.revision() > s.triedRevision) {
        seedFromBucket(s.id, "repair");
      }
    }
  }

  /**
   * Reads the source's snapshot from the bucket and seeds it when usable.
   *
   * @return whether it was seeded
   */
  private boolean seedFromBucket(SourceId id, String why) throws Exception {
    String key = NatsKeys.snapshotKey(id.worker(), id.dpRank());
    KeyValueEntry e = kv.get(key);
    if (e == null || e.getOperation() != KeyValueOperation.PUT || e.getValue() == null) {
      return false;
    }
    long rev = e.getRevision();
    maxSnapshotRevision.accumulateAndGet(rev, Math::max);
    NatsCursor.Source s = cursor.register(id);
    if (rev <= s.triedRevision) {
      return false;
    }
    Long purgedAt = purgedAtRevision.get(id.worker());
    if (purgedAt != null && rev <= purgedAt) {
      cursor.tried(id, rev);
      log.info(
          "nats snapshot predates the worker's removal, not seeded source={} revision={}", id, rev);
      return false;
    }
    // Server clock on both sides: a snapshot older than the stream names another stream's
    // sequences (the stream was deleted and created again).
    if (e.getCreated() != null
        && streamCreated != null
        && e.getCreated().toInstant().isBefore(streamCreated.toInstant())) {
      cursor.tried(id, rev);
      log.info(
          "nats snapshot predates the stream, not seeded source={} revision={} created={}"
              + " stream_created={}",
          id,
          rev,
          e.getCreated(),
          streamCreated);
      return false;
    }
    ViewSnapshot snap;
    try {
      snap = ViewSnapshot.decode(e.getValue());
    } catch (EventDecodeException ex) {
      badSnapshots.incrementAndGet();
      cursor.tried(id, rev);
      log.warn(
          "nats snapshot unreadable, source replays from the stream source={} revision={}"
              + " kind={} error={}",
          id,
          rev,
          ex.label(),
          ex.getMessage());
      return false;
    }
    if (snap.blockSize() != pageSize) {
      badSnapshots.incrementAndGet();
      cursor.tried(id, rev);
      log.warn(
          "nats snapshot block size is not the router's, not seeded source={} block_size={}"
              + " page_size={}",
          id,
          snap.blockSize(),
          pageSize);
      return false;
    }
    if (snap.streamSeq() > streamLastSeq) {
      readStream();
      if (snap.streamSeq() > streamLastSeq) {
        badSnapshots.incrementAndGet();
        cursor.tried(id, rev);
        log.warn(
            "nats snapshot watermark is beyond the stream, not seeded source={} stream_seq={}"
                + " stream_last_seq={}",
            id,
            snap.streamSeq(),
            streamLastSeq);
        return false;
      }
    }
    if (!cursor.seedable(id, snap)) {
      staleSnapshots.incrementAndGet();
      cursor.tried(id, rev);
      log.debug(
          "nats snapshot older than the applied events, not seeded source={} stream_seq={}"
              + " applied_stream_seq={}",
          id,
          snap.streamSeq(),
          s.lastStreamSeq);
      return false;
    }
    sink.accept(new Delivery.Snapshot(id.worker(), id.dpRank(), snap));
    long created = e.getCreated() == null ? 0 : e.getCreated().toInstant().toEpochMilli();
    cursor.seeded(id, snap, rev, created);
    snapshotsSeeded.incrementAndGet();
    log.info(
        "nats snapshot seeded source={} why={} pairs={} stream_seq={} engine_seq={} revision={}",
        id,
        why,
        snap.size(),
        snap.streamSeq(),
        snap.engineSeq() == KvEventMessage.NO_SEQ ? "none" : snap.engineSeq(),
        rev);
    return true;
  }

  private void applyPendingWorkers() throws Exception {
    Pending p = pending.get();
    if (p.generation() == appliedGeneration) {
      return;
    }
    appliedGeneration = p.generation();
    Map<WorkerId, Integer> next = new LinkedHashMap<>();
    for (WorkerInfo w : p.workers()) {
      next.put(w.id(), w.dpSize());
    }
    for (WorkerId w : new ArrayList<>(discovered.keySet())) {
      if (!next.containsKey(w)) {
        discovered.remove(w);
        cursor.removeWorker(w);
        int dropped = hold.drop(w);
        purgedAtRevision.put(w, bucketRevision());
        log.info("nats source worker removed worker={} held_dropped={}", w, dropped);
      }
    }
    for (Map.Entry<WorkerId, Integer> e : next.entrySet()) {
      WorkerId w = e.getKey();
      int dp = e.getValue();
      Integer old = discovered.put(w, dp);
      int from = old == null ? 0 : old;
      for (int r = from; r < dp; r++) {
        SourceId id = new SourceId(w, r);
        cursor.register(id);
        if (initialized) {
          seedFromBucket(id, "discovered");
        }
      }
      if (old == null && initialized) {
        List<NatsHold.Held> held = hold.take(w);
        for (NatsHold.Held h : held) {
          deliver(h.source(), h.streamSeq(), h.engineSeq(), h.payload(), h.timestampMillis());
        }
        log.info(
            "nats source worker discovered worker={} ranks={} held_delivered={}",
            w,
            dp,
            held.size());
      }
    }
  }

  /** The bucket's newest revision: snapshots up to it were written before now. */
  private long bucketRevision() {
    long rev = maxSnapshotRevision.get();
    try {
      rev = Math.max(rev, kv.getStatus().getBackingStreamInfo().getStreamState().getLastSequence());
    } catch (Exception e) {
      log.debug("nats bucket status failed, using the watched revision error={}", e.toString());
    }
    return rev;
  }

  /** jnats errors into the router's log. */
  private final class LoggingErrorListener implements ErrorListener {
    @Override
    public void errorOccurred(Connection c, String error) {
      log.warn("nats error url={} error={}", config.url(), error);
    }

    @Override
    public void exceptionOccurred(Connection c, Exception e) {
      if (running) {
        log.debug("nats exception url={} error={}", config.url(), e.toString());
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
          cursor.processed());
    }

    @Override
    public void pullStatusError(
        Connection c, JetStreamSubscription sub, io.nats.client.support.Status status) {
      log.debug("nats pull status error={}", status);
    }
  }
}
