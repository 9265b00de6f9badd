package io.infera.router.events.nats;

import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.EventSink;
import io.infera.router.kv.SourceId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.JetStreamSetup;
import io.nats.client.Connection;
import io.nats.client.ConsumeOptions;
import io.nats.client.IterableConsumer;
import io.nats.client.JetStreamOptions;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueOptions;
import io.nats.client.Message;
import io.nats.client.OrderedConsumerContext;
import io.nats.client.StreamContext;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.OrderedConsumerConfiguration;
import io.nats.client.api.StreamInfo;
import io.nats.client.impl.NatsJetStreamMetaData;
import io.nats.client.impl.NatsKeyValueWatchSubscription;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code nats} transport's consumer thread's work: per session (a connection, or a fresh
 * consumer after a reconnect or a stall) it sets up the stream and bucket, on the first session
 * waits for discovery, seeds and picks the start, then reads the stream in order: each message is
 * processed once ({@link NatsCursor}), gaps and retention losses are handled, and the rest goes to
 * {@link NatsSources}. Its position fields are volatile for status readers.
 */
final class NatsConsumer implements SnapshotSeeder.Stream {

  // The transport's log lines, under its name.
  private static final Logger log = LoggerFactory.getLogger(NatsTransport.class);
  private static final long REPAIR_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private record Pending(long generation, List<WorkerInfo> workers) {}

  private final RouterConfig.Nats config;
  private final NatsSettings settings;
  private final NatsCursor cursor;
  private final NatsCounters counters;
  private final SnapshotWatch watch;
  private final NatsSources sources;
  private final EventSink sink;
  private final BooleanSupplier running;
  private final Runnable consuming;
  private final AtomicReference<Pending> pending = new AtomicReference<>(new Pending(0, List.of()));

  // Consumer-thread state.
  private long appliedGeneration;
  private boolean initialized;
  private ZonedDateTime streamCreated;
  private StreamContext stream;
  private long startedNanos;
  private long lastRepairNanos;
  private long lastStreamCheckNanos;
  private long lastMessageNanos;

  // Shared state.
  private volatile long targetSeq = -1;
  private volatile long streamFirstSeq;
  private volatile long streamLastSeq;
  private volatile boolean caughtUp;
  private volatile boolean warm;
  private volatile boolean restartRequested;

  /**
   * @param sink receives the deliveries (and is flushed before {@link #warm()} turns true)
   * @param running false once the transport stops
   * @param consuming called on the consumer thread each time a consumer is under way (a session
   *     that works: the transport clears a crash)
   */
  NatsConsumer(
      RouterConfig.Nats config,
      NatsSettings settings,
      int pageSize,
      NatsCursor cursor,
      NatsHold hold,
      NatsCounters counters,
      SnapshotWatch watch,
      EventSink sink,
      BooleanSupplier running,
      Runnable consuming) {
    this.config = config;
    this.settings = settings;
    this.cursor = cursor;
    this.counters = counters;
    this.watch = watch;
    this.sink = sink;
    this.running = running;
    this.consuming = consuming;
    this.sources =
        new NatsSources(
            config.subjectPrefix(), pageSize, cursor, hold, counters, watch, this, sink);
  }

  /** The thread starts: consumption begins with the next session. */
  void begin() {
    startedNanos = System.nanoTime();
    log.info(
        "nats transport started url={} stream={} prefix={} bucket={}",
        config.url(),
        config.stream(),
        config.subjectPrefix(),
        config.snapshotBucket());
  }

  /** Publishes discovery's latest list; applied within a poll interval. Any thread. */
  void workersChanged(List<WorkerInfo> workers) {
    List<WorkerInfo> copy = List.copyOf(workers);
    pending.updateAndGet(p -> new Pending(p.generation() + 1, copy));
  }

  /** Ends the current session soon (a reconnect, or the transport stopping). Any thread. */
  void requestRestart() {
    restartRequested = true;
  }

  /** Whether the stream was read up to its last sequence as of the start. */
  boolean caughtUp() {
    return caughtUp;
  }

  /** Whether, moreover, the sink applied everything up to there. */
  boolean warm() {
    return warm;
  }

  /** The stream's last sequence when the router started, -1 before the start. */
  long targetSeq() {
    return targetSeq;
  }

  long streamFirstSeq() {
    return streamFirstSeq;
  }

  @Override
  public long lastSeq() {
    return streamLastSeq;
  }

  @Override
  public void refresh() throws Exception {
    readStream();
  }

  @Override
  public ZonedDateTime created() {
    return streamCreated;
  }

  /**
   * One consumer's life: set up, (first time) seed and pick the start, consume until a reconnect or
   * a stall asks for a fresh consumer.
   *
   * @return true when it consumed (the failure count starts over)
   */
  boolean session(Connection conn) throws Exception {
    restartRequested = false;
    JetStreamSetup.ensureStream(
        conn, config.stream(), config.subjectPrefix(), settings.streamLimits());
    JetStreamSetup.ensureBucket(conn, config.snapshotBucket());
    JetStreamOptions jso =
        JetStreamOptions.builder().requestTimeout(settings.requestTimeout()).build();
    KeyValue kv =
        conn.keyValue(
            config.snapshotBucket(),
            KeyValueOptions.builder().jsRequestTimeout(settings.requestTimeout()).build());
    sources.use(kv);
    stream = conn.getStreamContext(config.stream(), jso);
    NatsKeyValueWatchSubscription sub = watchSnapshots(kv);
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
        lost(cursor.processed() + 1, first - 1);
      }
      consume();
      return true;
    } finally {
      if (sub != null) {
        try {
          sub.unsubscribe();
        } catch (RuntimeException e) {
          log.debug("nats snapshot watch unsubscribe failed", e);
        }
      }
    }
  }

  private NatsKeyValueWatchSubscription watchSnapshots(KeyValue kv) {
    try {
      return watch.start(kv);
    } catch (Exception e) {
      // Without it, snapshot ages are those of the seeded snapshots and repairs wait for resyncs.
      counters.errors.incrementAndGet();
      log.warn("nats snapshot watch failed, continuing without error={}", e.toString());
      return null;
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
      if (!running.getAsBoolean() || restartRequested) {
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
    List<SourceId> expected = sources.expected();
    int seeded = 0;
    for (SourceId id : expected) {
      if (sources.seed(id, "start")) {
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

  private void applyPendingWorkers() throws Exception {
    Pending p = pending.get();
    if (p.generation() != appliedGeneration) {
      appliedGeneration = p.generation();
      sources.workers(p.workers(), initialized);
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
    consuming.run();
    lastMessageNanos = System.nanoTime();
    lastStreamCheckNanos = lastMessageNanos;
    try {
      checkCaughtUp(-1);
      while (running.getAsBoolean() && !restartRequested) {
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
      sources.expireAndRepair();
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
      lost(cursor.processed() + 1, first - 1);
    }
    if (last <= cursor.processed()) {
      checkCaughtUp(0);
      return;
    }
    // Behind the stream's end yet idle: interior deletions, or a consumer that lost its way.
    long pendingAfter = -1;
    try {
      pendingAfter = it.getConsumerInfo().getNumPending();
    } catch (Exception e) {
      log.debug("nats consumer info failed", e);
    }
    if (pendingAfter == 0) {
      checkCaughtUp(0);
    } else if (idle >= settings.stallTimeout().toNanos()) {
      counters.consumerRestarts.incrementAndGet();
      log.warn(
          "nats consumer stalled, recreating it processed_seq={} stream_last_seq={} pending={}"
              + " idle_ms={}",
          cursor.processed(),
          last,
          pendingAfter,
          TimeUnit.NANOSECONDS.toMillis(idle));
      restartRequested = true;
    }
  }

  /** Stream sequences {@code from..to} are gone unread: processed, and the loss handled. */
  private void lost(long from, long to) {
    sources.lost(config.stream(), from, to);
    cursor.advance(to);
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
          counters.snapshotsSeeded(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
      sink.flush().thenRun(() -> warm = true);
    }
  }

  private void handle(Message m) {
    NatsJetStreamMetaData md = m.metaData();
    long seq = md.streamSequence();
    byte[] data = m.getData() == null ? new byte[0] : m.getData();
    counters.messages.incrementAndGet();
    counters.bytes.addAndGet(data.length);
    if (!cursor.isNew(seq)) {
      counters.duplicates.incrementAndGet();
      return;
    }
    long gap = cursor.gapBefore(seq);
    if (gap > 0) {
      sources.lost(config.stream(), seq - gap, seq - 1);
    }
    cursor.advance(seq);
    long pendingAfter = md.pendingCount();
    streamLastSeq = Math.max(streamLastSeq, seq + pendingAfter);
    try {
      long ts = md.timestamp() == null ? 0 : md.timestamp().toInstant().toEpochMilli();
      sources.message(m.getSubject(), seq, m.getHeaders(), data, ts);
    } catch (Error e) {
      // The thread crashes and restarts after this message, which may not have reached the index:
      // its source is degraded (as by an engine gap) until a snapshot is seeded.
      try {
        EventSubjects.Source src = EventSubjects.parse(config.subjectPrefix(), m.getSubject());
        if (src != null) {
          cursor.degrade(new SourceId(src.worker(), src.rank()), NatsCursor.Degraded.ENGINE_GAP);
        }
      } catch (Throwable ignored) {
        // The crash is reported as it is; a second failure here adds nothing.
      }
      throw e;
    } finally {
      checkCaughtUp(pendingAfter);
    }
  }
}
