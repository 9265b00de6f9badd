package io.infera.router.events;

import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.WorkerId;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMQException;

/**
 * {@code zmq}: subscribes directly to every worker rank's KV-event PUB socket and fills sequence
 * gaps from the engine's replay socket (DESIGN.md §4).
 *
 * <p>Threading: every ZMQ socket and the context belong to one poller thread ({@value
 * #THREAD_NAME}). {@link #workersChanged} only publishes the latest worker list, which the poller
 * applies at its next turn (at most {@link Settings#pollInterval()} later). Sink calls happen on
 * the poller thread, in arrival order per source; payloads are handed over undecoded.
 */
public final class ZmqTransport implements EventTransport {

  /** Name of the poller thread. */
  public static final String THREAD_NAME = "infera-zmq-events";

  private static final Logger log = LoggerFactory.getLogger(ZmqTransport.class);
  private static final byte[] EMPTY = new byte[0];
  private static final long UNKNOWN_SEQ = Long.MIN_VALUE;

  /** Messages read from one socket per poll turn, so one busy engine cannot starve the others. */
  private static final int MAX_MESSAGES_PER_TURN = 1024;

  /**
   * Tuning, all defaulted by {@link #defaults()}.
   *
   * @param pollInterval longest wait for a message; bounds how late a worker change is applied
   * @param reconnectInterval first ZMQ reconnect delay after a lost or refused connection
   * @param reconnectIntervalMax ZMQ reconnect back-off cap (also the retry delay of an endpoint
   *     whose connect failed, e.g. a host name that does not resolve yet)
   * @param handshakeInterval a connection whose ZMTP handshake has not completed by then is dropped
   *     and redialled. Short on purpose: jeromq 0.6.0's connecting side sometimes never starts the
   *     handshake (zeromq/jeromq#1022), and the 30 s ZMQ default would leave such a source deaf for
   *     that long
   * @param receiveHighWaterMark messages buffered per SUB socket before ZMQ drops (seen as a gap)
   * @param replayTimeout longest time one replay request may hold the poller
   * @param replayBackoff after a timed-out replay, that source's gaps stay unfilled this long
   * @param settleTime time after connect after which a silent source counts as warm
   * @param catchUpOnFirstMessage on the first sequenced message of a source (and after an engine
   *     restart), also replay the batches before it that are still in the engine's buffer
   * @param idleProbe a subscribed source with a replay socket that has been silent this long is
   *     asked for what follows its last sequence (zero: never). What a SUB socket misses before its
   *     subscription reaches the engine (ZMQ's slow joiner), or a dropped last batch, is otherwise
   *     only noticed at the engine's next batch, which may not come for a long time
   */
  public record Settings(
      Duration pollInterval,
      Duration reconnectInterval,
      Duration reconnectIntervalMax,
      Duration handshakeInterval,
      int receiveHighWaterMark,
      Duration replayTimeout,
      Duration replayBackoff,
      Duration settleTime,
      boolean catchUpOnFirstMessage,
      Duration idleProbe) {

    public Settings {
      positive(pollInterval, "pollInterval");
      positive(reconnectInterval, "reconnectInterval");
      positive(reconnectIntervalMax, "reconnectIntervalMax");
      positive(handshakeInterval, "handshakeInterval");
      positive(replayTimeout, "replayTimeout");
      nonNegative(idleProbe, "idleProbe");
      nonNegative(replayBackoff, "replayBackoff");
      nonNegative(settleTime, "settleTime");
      if (reconnectIntervalMax.compareTo(reconnectInterval) < 0) {
        throw new IllegalArgumentException("reconnectIntervalMax must be >= reconnectInterval");
      }
      if (receiveHighWaterMark < 0) {
        throw new IllegalArgumentException("receiveHighWaterMark must be >= 0 (0 = unbounded)");
      }
    }

    /**
     * 50 ms poll, reconnect 100 ms … 5 s, 1 s handshake, 100k messages per socket, 2 s replay
     * bound, 5 s replay back-off, 300 ms settle time, catch-up on, idle probe after 1 s.
     */
    public static Settings defaults() {
      return new Settings(
          Duration.ofMillis(50),
          Duration.ofMillis(100),
          Duration.ofSeconds(5),
          Duration.ofSeconds(1),
          100_000,
          Duration.ofSeconds(2),
          Duration.ofSeconds(5),
          Duration.ofMillis(300),
          true,
          Duration.ofSeconds(1));
    }

    private static void positive(Duration d, String name) {
      nonNegative(d, name);
      if (d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, got " + d);
      }
    }

    private static void nonNegative(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative()) {
        throw new IllegalArgumentException(name + " must not be negative, got " + d);
      }
    }
  }

  /**
   * One (worker, rank) subscription as the admin status shows it.
   *
   * @param endpoint the rank's PUB endpoint (rank 0's port + rank)
   * @param connected whether the SUB socket is connected (ZMQ keeps reconnecting by itself)
   * @param lastSeq last sequence number seen, or -1 before the first sequenced message
   * @param messages messages received from this source (replayed ones included)
   * @param warm whether the source has delivered something or settled after connecting
   */
  public record SourceStatus(
      WorkerId worker,
      int rank,
      String endpoint,
      boolean connected,
      long lastSeq,
      long messages,
      boolean warm) {}

  private record SourceKey(WorkerId worker, int rank, String endpoint, String replayEndpoint) {}

  private record Pending(long generation, List<WorkerInfo> workers) {}

  /** Per-source state: written by the poller thread only, read by any thread for status. */
  private static final class Source {
    final SourceKey key;
    ZMQ.Socket sub;
    volatile boolean connected;
    volatile long connectedAtNanos;
    volatile boolean received;
    volatile long lastSeq = UNKNOWN_SEQ;
    volatile long messages;
    long retryConnectAtNanos;
    int connectFailures;
    long replayAllowedAtNanos;
    // Last SUB message or idle probe; the topic frame of the last message (for replayed ones).
    long lastActivityNanos;
    byte[] topic = EMPTY;
    // Sequences an idle probe replayed that may still arrive on the SUB socket: skipped there.
    long probedFrom;
    long probedThrough = -1;

    Source(SourceKey key) {
      this.key = key;
    }

    boolean warm(long now, long settleNanos) {
      return received || (connected && now - connectedAtNanos >= settleNanos);
    }
  }

  /** Why batches are asked for again; only a gap or a restart means they were lost. */
  private enum FillReason {
    CATCH_UP,
    GAP,
    RESTART;

    String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** What one replay request brought back. */
  /**
   * @param delivered batches passed to the sink
   * @param timedOut no end marker in time
   * @param lastSeq the last batch delivered (or the one before the first wanted)
   * @param seen batches answered at or after the requested start, delivered or not
   */
  private record ReplayResult(int delivered, boolean timedOut, long lastSeq, int seen) {}

  private final Settings settings;
  private final AtomicReference<Pending> pending = new AtomicReference<>(new Pending(0, List.of()));
  private final AtomicLong messagesReceived = new AtomicLong();
  private final AtomicLong replaysRequested = new AtomicLong();
  private final AtomicLong replayMessages = new AtomicLong();
  private final AtomicLong replayTimeouts = new AtomicLong();
  private final AtomicLong idleProbes = new AtomicLong();
  private final AtomicLong probeDuplicates = new AtomicLong();
  private final AtomicLong sequenceGaps = new AtomicLong();
  private final AtomicLong missedMessages = new AtomicLong();
  private final AtomicLong engineRestarts = new AtomicLong();
  private final AtomicLong connectFailures = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();

  // Poller-thread state.
  private final Map<SourceKey, Source> sources = new LinkedHashMap<>();
  private ZContext context;
  private ZMQ.Poller poller;
  private Source[] polled = new Source[0];
  private boolean pollerStale = true;

  // Shared state.
  private volatile List<Source> view = List.of();
  private volatile long appliedGeneration = -1;
  private volatile boolean running;
  private volatile EventSink sink;
  private Thread thread;
  private boolean closed;

  public ZmqTransport() {
    this(Settings.defaults());
  }

  public ZmqTransport(Settings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  @Override
  public synchronized void start(EventSink sink) {
    Objects.requireNonNull(sink, "sink");
    if (closed) {
      throw new IllegalStateException("zmq transport is closed");
    }
    if (thread != null) {
      throw new IllegalStateException("zmq transport already started");
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
   * True when the poller has applied the latest worker list and every source of it has either
   * delivered a message or been connected for {@link Settings#settleTime()}. Time since connect
   * (not a socket monitor) is deliberate: ZMQ connects in the background and PUB/SUB carries no
   * history, so "listening for long enough that the subscription reached the engine" is all that
   * warm can mean here.
   */
  @Override
  public boolean warm() {
    if (!running || pending.get().generation() != appliedGeneration) {
      return false;
    }
    long now = System.nanoTime();
    long settle = settings.settleTime().toNanos();
    for (Source s : view) {
      if (!s.warm(now, settle)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String name() {
    return "zmq";
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
      t = thread;
    }
    if (t == null || t == Thread.currentThread()) {
      return;
    }
    try {
      t.join(settings.pollInterval().toMillis() + settings.replayTimeout().toMillis() + 1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      log.warn("zmq transport poller did not stop thread={}", t.getName());
    } else {
      log.info("zmq transport closed");
    }
  }

  /** The current sources, for the admin status. Any thread. */
  public List<SourceStatus> sources() {
    long now = System.nanoTime();
    long settle = settings.settleTime().toNanos();
    List<SourceStatus> out = new ArrayList<>();
    for (Source s : view) {
      long seq = s.lastSeq;
      out.add(
          new SourceStatus(
              s.key.worker(),
              s.key.rank(),
              s.key.endpoint(),
              s.connected,
              seq == UNKNOWN_SEQ ? -1 : seq,
              s.messages,
              s.warm(now, settle)));
    }
    return List.copyOf(out);
  }

  /** Messages received on SUB sockets (replayed ones not included). */
  public long messagesReceived() {
    return messagesReceived.get();
  }

  /** Replay requests sent (gaps, catch-ups after a first message or an engine restart). */
  public long replaysRequested() {
    return replaysRequested.get();
  }

  /** Messages obtained from replay sockets and delivered. */
  public long replayMessages() {
    return replayMessages.get();
  }

  /** Replay requests sent because a source was silent ({@link Settings#idleProbe}). */
  public long idleProbes() {
    return idleProbes.get();
  }

  /** Live messages skipped because an idle probe had already replayed them. */
  public long probeDuplicates() {
    return probeDuplicates.get();
  }

  /** Replay requests that got no complete answer in time (dead or slow replay socket). */
  public long replayTimeouts() {
    return replayTimeouts.get();
  }

  /** Sequence gaps seen on SUB sockets (messages dropped by ZMQ or while disconnected). */
  public long sequenceGaps() {
    return sequenceGaps.get();
  }

  /** Sequence numbers skipped by a gap that no replay recovered: lost to the index. */
  public long missedMessages() {
    return missedMessages.get();
  }

  /** Sources whose sequence went down: the engine restarted. */
  public long engineRestarts() {
    return engineRestarts.get();
  }

  /** Endpoints that could not be connected (bad address, unresolvable host); retried. */
  public long connectFailures() {
    return connectFailures.get();
  }

  /** Unexpected exceptions caught on the poller thread (including sink failures). */
  public long errors() {
    return errors.get();
  }

  /** The poller thread, or null before start. For tests. */
  synchronized Thread pollerThread() {
    return thread;
  }

  /**
   * The endpoint of data-parallel rank {@code rank}, derived from rank 0's exactly like vLLM's
   * {@code ZmqEventPublisher.offset_endpoint_port}: TCP port + rank, inproc name + {@code
   * _dp<rank>}.
   *
   * @throws IllegalArgumentException for an endpoint whose port cannot be offset
   */
  public static String offsetEndpointPort(String endpoint, int rank) {
    if (endpoint == null) {
      return null;
    }
    if (endpoint.contains("inproc")) {
      return endpoint + "_dp" + rank;
    }
    int colon = endpoint.lastIndexOf(':');
    if (endpoint.contains("tcp") && colon > endpoint.indexOf("://") + 2) {
      int port;
      try {
        port = Integer.parseInt(endpoint.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("endpoint " + endpoint + " has no numeric port", e);
      }
      return endpoint.substring(0, colon + 1) + (port + rank);
    }
    if (rank == 0) {
      return endpoint;
    }
    throw new IllegalArgumentException(
        "cannot derive the rank " + rank + " endpoint from " + endpoint + " (tcp or inproc only)");
  }

  // ---------------------------------------------------------------- poller thread

  private void run() {
    log.info(
        "zmq transport started poll_ms={} reconnect_ms={}..{} handshake_ms={} rcvhwm={}"
            + " replay_timeout_ms={}",
        settings.pollInterval().toMillis(),
        settings.reconnectInterval().toMillis(),
        settings.reconnectIntervalMax().toMillis(),
        settings.handshakeInterval().toMillis(),
        settings.receiveHighWaterMark(),
        settings.replayTimeout().toMillis());
    try (ZContext ctx = new ZContext(1)) {
      ctx.setLinger(0);
      context = ctx;
      while (running) {
        try {
          turn();
        } catch (ZMQException e) {
          if (e.getErrorCode() == ZMQ.Error.ETERM.getCode()) {
            log.warn("zmq transport context terminated");
            break;
          }
          pauseAfterError(e);
        } catch (RuntimeException e) {
          pauseAfterError(e);
        }
      }
      closeAll();
    } catch (RuntimeException e) {
      errors.incrementAndGet();
      log.error("zmq transport poller failed", e);
    } finally {
      running = false;
      context = null;
      view = List.of();
    }
  }

  private void turn() {
    applyPendingWorkers();
    retryFailedConnects();
    if (pollerStale) {
      rebuildPoller();
    }
    if (polled.length == 0) {
      LockSupport.parkNanos(settings.pollInterval().toNanos());
      return;
    }
    if (poller.poll(settings.pollInterval().toMillis()) > 0) {
      for (int i = 0; i < polled.length && running; i++) {
        if (poller.pollin(i)) {
          drain(polled[i]);
        }
      }
    }
    probeIdle();
  }

  /**
   * Asks each long-silent source's replay socket for what follows its last sequence L, starting at
   * L itself: the engine's buffer always holds its newest batches, so an answer without L or
   * anything after it means the engine's newest sequence is below L — it restarted, and its batches
   * from 0 are fetched (the sink sees a sequence going down, as after a live restart).
   */
  private void probeIdle() {
    if (settings.idleProbe().isZero()) {
      return;
    }
    long now = System.nanoTime();
    long idle = settings.idleProbe().toNanos();
    for (int i = 0; i < polled.length && running; i++) {
      Source s = polled[i];
      if (s.key.replayEndpoint() == null
          || now - s.lastActivityNanos < idle
          || now - s.connectedAtNanos < idle
          || now - s.replayAllowedAtNanos < 0) {
        continue;
      }
      s.lastActivityNanos = now;
      idleProbes.incrementAndGet();
      long last = s.lastSeq;
      long from = last == UNKNOWN_SEQ ? 0 : last + 1;
      ReplayResult r = replay(s, last == UNKNOWN_SEQ ? 0 : last, from, Long.MAX_VALUE, s.topic);
      boolean restarted = false;
      if (!r.timedOut() && last != UNKNOWN_SEQ && r.seen() == 0) {
        restarted = true;
        engineRestarts.incrementAndGet();
        from = 0;
        r = replay(s, 0, 0, Long.MAX_VALUE, s.topic);
        log.info(
            "zmq source idle probe: the engine no longer has seq {}, it restarted worker={}"
                + " rank={} replayed={}",
            last,
            s.key.worker(),
            s.key.rank(),
            r.delivered());
        s.lastSeq = UNKNOWN_SEQ;
      }
      if (r.timedOut()) {
        replayTimeouts.incrementAndGet();
        s.replayAllowedAtNanos = System.nanoTime() + settings.replayBackoff().toNanos();
      }
      if (r.delivered() > 0) {
        s.received = true;
        s.probedFrom = from;
        s.probedThrough = r.lastSeq();
        s.lastSeq = r.lastSeq();
        if (!restarted) {
          log.info(
              "zmq source idle probe found batches the subscription missed worker={} rank={}"
                  + " from_seq={} to_seq={} replayed={}",
              s.key.worker(),
              s.key.rank(),
              from,
              r.lastSeq(),
              r.delivered());
        }
      }
    }
  }

  private void pauseAfterError(RuntimeException e) {
    errors.incrementAndGet();
    log.warn("zmq transport poller error, continuing error={}", e.toString(), e);
    // Some failures repeat on every turn; don't spin on them.
    LockSupport.parkNanos(settings.pollInterval().toNanos());
  }

  private void applyPendingWorkers() {
    Pending p = pending.get();
    if (p.generation() == appliedGeneration) {
      return;
    }
    Map<SourceKey, WorkerInfo> wanted = new LinkedHashMap<>();
    for (WorkerInfo w : p.workers()) {
      if (w.zmqEndpoint() == null || w.zmqEndpoint().isBlank()) {
        continue;
      }
      for (int rank = 0; rank < w.dpSize(); rank++) {
        try {
          String replay =
              w.zmqReplayEndpoint() == null || w.zmqReplayEndpoint().isBlank()
                  ? null
                  : offsetEndpointPort(w.zmqReplayEndpoint(), rank);
          SourceKey key =
              new SourceKey(w.id(), rank, offsetEndpointPort(w.zmqEndpoint(), rank), replay);
          wanted.put(key, w);
        } catch (IllegalArgumentException e) {
          connectFailures.incrementAndGet();
          log.warn(
              "zmq source skipped worker={} rank={} endpoint={} error={}",
              w.id(),
              rank,
              w.zmqEndpoint(),
              e.getMessage());
        }
      }
    }
    List<Source> removed = new ArrayList<>();
    sources
        .entrySet()
        .removeIf(
            e -> {
              if (wanted.containsKey(e.getKey())) {
                return false;
              }
              removed.add(e.getValue());
              return true;
            });
    if (!removed.isEmpty()) {
      // The poller holds the sockets' channels: drop it before closing them.
      closePoller();
      for (Source s : removed) {
        closeSource(s);
        log.info(
            "zmq source removed worker={} rank={} endpoint={} messages={} last_seq={}",
            s.key.worker(),
            s.key.rank(),
            s.key.endpoint(),
            s.messages,
            s.lastSeq == UNKNOWN_SEQ ? -1 : s.lastSeq);
      }
    }
    for (SourceKey key : wanted.keySet()) {
      if (!sources.containsKey(key)) {
        Source s = new Source(key);
        sources.put(key, s);
        connect(s);
      }
    }
    view = List.copyOf(sources.values());
    appliedGeneration = p.generation();
  }

  private void connect(Source s) {
    ZMQ.Socket sub = context.createSocket(SocketType.SUB);
    sub.setLinger(0);
    sub.setRcvHWM(settings.receiveHighWaterMark());
    sub.setReconnectIVL((int) settings.reconnectInterval().toMillis());
    sub.setReconnectIVLMax((int) settings.reconnectIntervalMax().toMillis());
    sub.setHandshakeIvl((int) settings.handshakeInterval().toMillis());
    sub.subscribe(ZMQ.SUBSCRIPTION_ALL);
    try {
      sub.connect(s.key.endpoint());
    } catch (RuntimeException e) {
      // jeromq resolves host names synchronously: an unknown host throws here, ZMQ won't retry.
      sub.close();
      connectFailures.incrementAndGet();
      s.connectFailures++;
      s.retryConnectAtNanos = System.nanoTime() + settings.reconnectIntervalMax().toNanos();
      if (s.connectFailures == 1) {
        log.warn(
            "zmq source connect failed, retrying worker={} rank={} endpoint={} retry_ms={}"
                + " error={}",
            s.key.worker(),
            s.key.rank(),
            s.key.endpoint(),
            settings.reconnectIntervalMax().toMillis(),
            e.toString());
      } else {
        log.debug(
            "zmq source connect failed worker={} rank={} endpoint={} attempts={} error={}",
            s.key.worker(),
            s.key.rank(),
            s.key.endpoint(),
            s.connectFailures,
            e.toString());
      }
      return;
    }
    s.sub = sub;
    s.connectedAtNanos = System.nanoTime();
    s.connected = true;
    pollerStale = true;
    log.info(
        "zmq source subscribed worker={} rank={} endpoint={} replay_endpoint={}",
        s.key.worker(),
        s.key.rank(),
        s.key.endpoint(),
        s.key.replayEndpoint());
  }

  private void retryFailedConnects() {
    long now = System.nanoTime();
    for (Source s : sources.values()) {
      if (s.sub == null && now - s.retryConnectAtNanos >= 0) {
        connect(s);
      }
    }
  }

  private void rebuildPoller() {
    closePoller();
    List<Source> open = new ArrayList<>();
    for (Source s : sources.values()) {
      if (s.sub != null) {
        open.add(s);
      }
    }
    polled = open.toArray(new Source[0]);
    if (polled.length > 0) {
      poller = context.createPoller(polled.length);
      for (int i = 0; i < polled.length; i++) {
        int index = poller.register(polled[i].sub, ZMQ.Poller.POLLIN);
        if (index != i) {
          throw new IllegalStateException("poller index " + index + " != " + i);
        }
      }
    }
    pollerStale = false;
  }

  private void closePoller() {
    if (poller != null) {
      poller.close();
      poller = null;
    }
    polled = new Source[0];
    pollerStale = true;
  }

  private void closeSource(Source s) {
    s.connected = false;
    if (s.sub != null) {
      try {
        s.sub.close();
      } catch (RuntimeException e) {
        errors.incrementAndGet();
        log.warn("zmq source close failed worker={} rank={}", s.key.worker(), s.key.rank(), e);
      }
      s.sub = null;
    }
  }

  private void closeAll() {
    closePoller();
    for (Source s : sources.values()) {
      closeSource(s);
    }
    sources.clear();
  }

  private void drain(Source s) {
    for (int i = 0; i < MAX_MESSAGES_PER_TURN && running; i++) {
      byte[] first = s.sub.recv(ZMQ.DONTWAIT);
      if (first == null) {
        return;
      }
      List<byte[]> frames = readRest(s.sub, first);
      messagesReceived.incrementAndGet();
      s.messages++;
      s.lastActivityNanos = System.nanoTime();
      if (!s.received) {
        s.received = true;
        log.info(
            "zmq source first message worker={} rank={} frames={}",
            s.key.worker(),
            s.key.rank(),
            frames.size());
      }
      if (frames.size() == 3 && frames.get(1).length == 8) {
        s.topic = frames.get(0);
        long seq = seqOf(frames.get(1));
        if (seq >= s.probedFrom && seq <= s.probedThrough) {
          probeDuplicates.incrementAndGet();
          continue; // already delivered by the idle probe's replay
        }
        s.probedThrough = -1;
        if (seq >= 0) {
          checkSequence(s, seq, frames.get(0));
          s.lastSeq = seq;
        }
      }
      deliver(s, frames, false);
    }
  }

  private static List<byte[]> readRest(ZMQ.Socket socket, byte[] first) {
    List<byte[]> frames = new ArrayList<>(3);
    frames.add(first);
    // The parts of a multipart message arrive together: once the first is here, all are.
    while (socket.hasReceiveMore()) {
      frames.add(socket.recv(0));
    }
    return frames;
  }

  private static long seqOf(byte[] frame) {
    return ByteBuffer.wrap(frame).getLong();
  }

  /** Replays what is missing before {@code seq}, then lets the caller deliver {@code seq}. */
  private void checkSequence(Source s, long seq, byte[] topic) {
    long last = s.lastSeq;
    if (last == UNKNOWN_SEQ) {
      if (settings.catchUpOnFirstMessage() && seq > 0) {
        fill(s, 0, seq, topic, FillReason.CATCH_UP);
      }
    } else if (seq > last + 1) {
      sequenceGaps.incrementAndGet();
      fill(s, last + 1, seq, topic, FillReason.GAP);
    } else if (seq <= last) {
      engineRestarts.incrementAndGet();
      log.info(
          "zmq source sequence went down, engine restarted worker={} rank={} last_seq={} seq={}",
          s.key.worker(),
          s.key.rank(),
          last,
          seq);
      if (settings.catchUpOnFirstMessage() && seq > 0) {
        fill(s, 0, seq, topic, FillReason.RESTART);
      }
    }
  }

  private void fill(Source s, long from, long to, byte[] topic, FillReason reason) {
    long wanted = to - from;
    boolean loss = reason != FillReason.CATCH_UP;
    String replayEndpoint = s.key.replayEndpoint();
    long now = System.nanoTime();
    if (replayEndpoint == null || now - s.replayAllowedAtNanos < 0) {
      if (loss) {
        missedMessages.addAndGet(wanted);
        log.warn(
            "zmq source missed messages, no replay worker={} rank={} reason={} from_seq={}"
                + " to_seq={} missed={} replay_endpoint={}",
            s.key.worker(),
            s.key.rank(),
            reason.wireName(),
            from,
            to - 1,
            wanted,
            replayEndpoint == null ? "none" : "backing_off");
      }
      return;
    }
    replaysRequested.incrementAndGet();
    ReplayResult r = replay(s, from, from, to, topic);
    long missing = wanted - r.delivered();
    if (r.timedOut()) {
      replayTimeouts.incrementAndGet();
      s.replayAllowedAtNanos = System.nanoTime() + settings.replayBackoff().toNanos();
    }
    if (loss && missing > 0) {
      missedMessages.addAndGet(missing);
    }
    if (missing > 0 && (loss || r.timedOut())) {
      log.warn(
          "zmq source replay incomplete worker={} rank={} reason={} from_seq={} to_seq={}"
              + " replayed={} missed={} timed_out={} replay_endpoint={}",
          s.key.worker(),
          s.key.rank(),
          reason.wireName(),
          from,
          to - 1,
          r.delivered(),
          missing,
          r.timedOut(),
          replayEndpoint);
    } else {
      log.info(
          "zmq source replayed worker={} rank={} reason={} from_seq={} to_seq={} replayed={}",
          s.key.worker(),
          s.key.rank(),
          reason.wireName(),
          from,
          to - 1,
          r.delivered());
    }
  }

  /**
   * Asks the rank's replay ROUTER for everything from {@code from} and delivers, in order, the
   * batches from {@code deliverFrom} and before {@code to} (later ones are already queued on the
   * SUB socket). A fresh DEALER per request: a late answer to a timed-out request can never be
   * mistaken for the next one.
   */
  private ReplayResult replay(Source s, long from, long deliverFrom, long to, byte[] topic) {
    long deadline = System.nanoTime() + settings.replayTimeout().toNanos();
    int delivered = 0;
    int seen = 0;
    long lastReplayed = deliverFrom - 1;
    ZMQ.Socket dealer = context.createSocket(SocketType.DEALER);
    try {
      dealer.setLinger(0);
      dealer.setReconnectIVL((int) settings.reconnectInterval().toMillis());
      // A stuck handshake (see Settings#handshakeInterval) must be redialled within the bound;
      // the queued request survives the redial.
      dealer.setHandshakeIvl(
          (int)
              Math.min(
                  settings.handshakeInterval().toMillis(),
                  Math.max(1, settings.replayTimeout().toMillis() / 3)));
      dealer.connect(s.key.replayEndpoint());
      // The engine's ROUTER sees [identity, "", start_seq].
      dealer.sendMore(EMPTY);
      dealer.send(KvEventMessage.seqBytes(from));
      while (running) {
        long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (remaining <= 0) {
          return new ReplayResult(delivered, true, lastReplayed, seen);
        }
        // Wait in slices so that close() is not held up by a long replay.
        dealer.setReceiveTimeOut((int) Math.min(remaining, settings.pollInterval().toMillis()));
        byte[] first = dealer.recv(0);
        if (first == null) {
          continue;
        }
        List<byte[]> frames = readRest(dealer, first);
        // vLLM answers ["", seq, payload] (the ROUTER strips the identity); accept [seq, payload].
        int at = frames.size() == 3 && frames.get(0).length == 0 ? 1 : 0;
        if (frames.size() - at != 2 || frames.get(at).length != 8) {
          errors.incrementAndGet();
          log.warn(
              "zmq replay answer malformed, ignored worker={} rank={} frames={}",
              s.key.worker(),
              s.key.rank(),
              frames.size());
          continue;
        }
        long seq = seqOf(frames.get(at));
        byte[] payload = frames.get(at + 1);
        if (seq == -1 && payload.length == 0) {
          return new ReplayResult(delivered, false, lastReplayed, seen);
        }
        if (seq >= from) {
          seen++;
        }
        if (seq > lastReplayed && seq < to) {
          lastReplayed = seq;
          delivered++;
          replayMessages.incrementAndGet();
          s.messages++;
          deliver(s, List.of(topic, frames.get(at), payload), true);
        }
      }
      return new ReplayResult(delivered, true, lastReplayed, seen);
    } finally {
      dealer.close();
    }
  }

  private void deliver(Source s, List<byte[]> frames, boolean replayed) {
    try {
      sink.accept(
          replayed
              ? new Delivery.Replayed(s.key.worker(), s.key.rank(), frames)
              : new Delivery.Live(s.key.worker(), s.key.rank(), frames));
    } catch (RuntimeException e) {
      errors.incrementAndGet();
      log.warn(
          "zmq event sink failed, message dropped worker={} rank={} replayed={}",
          s.key.worker(),
          s.key.rank(),
          replayed,
          e);
    }
  }
}
