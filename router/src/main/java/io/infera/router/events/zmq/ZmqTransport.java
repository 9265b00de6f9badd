package io.infera.router.events.zmq;

import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.Backoff;
import io.infera.router.events.Delivery;
import io.infera.router.events.EventSink;
import io.infera.router.events.EventTransport;
import io.infera.router.events.TransportStatus;
import io.infera.router.events.TransportThread;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * gaps from the engine's replay socket (docs/contracts.md, "KV-event wire formats").
 *
 * <p>Threading: every ZMQ socket and the context belong to one poller thread ({@value
 * #THREAD_NAME}). {@link #workersChanged} only publishes the latest worker list, which the poller
 * applies at its next turn (at most {@link ZmqSettings#pollInterval()} later). Sink calls happen on
 * the poller thread, in arrival order per source; payloads are handed over undecoded, each with the
 * rank of the socket it came from. Each message's sequence is judged by {@link SequenceCheck};
 * replays go through {@link Replays}.
 */
public final class ZmqTransport extends TransportThread implements EventTransport {

  /** Name of the poller thread. */
  public static final String THREAD_NAME = "infera-zmq-events";

  private static final Logger log = LoggerFactory.getLogger(ZmqTransport.class);

  /** Messages read from one socket per poll turn, so one busy engine cannot starve the others. */
  private static final int MAX_MESSAGES_PER_TURN = 1024;

  private record Pending(long generation, List<WorkerInfo> workers) {}

  private final ZmqSettings settings;
  private final ZmqCounters counters = new ZmqCounters();
  private final Replays replays;
  private final AtomicReference<Pending> pending = new AtomicReference<>(new Pending(0, List.of()));

  // Poller-thread state.
  private final Map<ZmqSource.Key, ZmqSource> sources = new LinkedHashMap<>();
  private ZContext context;
  private ZMQ.Poller poller;
  private ZmqSource[] polled = new ZmqSource[0];
  private boolean pollerStale = true;

  // Shared state.
  private volatile List<ZmqSource> view = List.of();
  private volatile long appliedGeneration = -1;
  private volatile EventSink sink;

  public ZmqTransport() {
    this(ZmqSettings.defaults());
  }

  public ZmqTransport(ZmqSettings settings) {
    // A failed turn is retried after about one poll interval.
    super(THREAD_NAME, new Backoff(settings.pollInterval(), settings.pollInterval()));
    this.settings = Objects.requireNonNull(settings, "settings");
    this.replays = new Replays(settings, counters, this::running, this::deliverReplayed);
  }

  @Override
  public synchronized void start(EventSink sink) {
    Objects.requireNonNull(sink, "sink");
    checkStartable("zmq transport");
    this.sink = sink;
    startThread("zmq transport");
  }

  @Override
  public void workersChanged(List<WorkerInfo> workers) {
    List<WorkerInfo> copy = List.copyOf(workers);
    pending.updateAndGet(p -> new Pending(p.generation() + 1, copy));
  }

  /**
   * True when the poller has applied the latest worker list and every source of it has either
   * delivered a message or been connected for {@link ZmqSettings#settleTime()}. Time since connect
   * (not a socket monitor) is deliberate: ZMQ connects in the background and PUB/SUB carries no
   * history, so "listening for long enough that the subscription reached the engine" is all that
   * warm can mean here.
   */
  @Override
  public boolean warm() {
    if (!running() || pending.get().generation() != appliedGeneration) {
      return false;
    }
    long now = System.nanoTime();
    long settle = settings.settleTime().toNanos();
    for (ZmqSource s : view) {
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

  /** Name and warmth; the admin status shows no more of this transport. */
  @Override
  public TransportStatus status() {
    return new TransportStatus(name(), warm(), threadProblem(), Map.of(), null);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    counters.bindTo(registry);
    TransportThread.bindCrashes(registry, name(), this);
  }

  @Override
  public void close() {
    Duration join =
        settings.pollInterval().plus(settings.replayTimeout()).plus(Duration.ofSeconds(1));
    switch (stopThread(join)) {
      case STILL_RUNNING -> log.warn("zmq transport poller did not stop thread={}", THREAD_NAME);
      case ENDED -> log.info("zmq transport closed");
      case ALREADY, NEVER_STARTED -> {}
    }
  }

  /** The current sources, for the relay's status. Any thread. */
  public List<ZmqSourceStatus> sources() {
    long now = System.nanoTime();
    long settle = settings.settleTime().toNanos();
    List<ZmqSourceStatus> out = new ArrayList<>();
    for (ZmqSource s : view) {
      out.add(s.status(now, settle));
    }
    return List.copyOf(out);
  }

  /** The transport's counters. Any thread. */
  public ZmqCounters counters() {
    return counters;
  }

  /** The poller thread, or null before start. For tests. */
  Thread pollerThread() {
    return thread();
  }

  // ---------------------------------------------------------------- poller thread

  @Override
  protected void beforeLoop() {
    log.info(
        "zmq transport started poll_ms={} reconnect_ms={}..{} handshake_ms={} rcvhwm={}"
            + " replay_timeout_ms={}",
        settings.pollInterval().toMillis(),
        settings.reconnectInterval().toMillis(),
        settings.reconnectIntervalMax().toMillis(),
        settings.handshakeInterval().toMillis(),
        settings.receiveHighWaterMark(),
        settings.replayTimeout().toMillis());
    context = new ZContext(1);
    context.setLinger(0);
  }

  @Override
  protected boolean step() {
    applyPendingWorkers();
    retryFailedConnects();
    if (pollerStale) {
      rebuildPoller();
    }
    if (polled.length == 0) {
      LockSupport.parkNanos(settings.pollInterval().toNanos());
      return true;
    }
    if (poller.poll(settings.pollInterval().toMillis()) > 0) {
      for (int i = 0; i < polled.length && running(); i++) {
        if (poller.pollin(i)) {
          drain(polled[i]);
        }
      }
    }
    replays.probeIdle(context, polled, this::running);
    return true;
  }

  @Override
  protected boolean failed(Exception e, int failures, Duration pause) {
    if (e instanceof ZMQException z && z.getErrorCode() == ZMQ.Error.ETERM.getCode()) {
      log.warn("zmq transport context terminated");
      return false;
    }
    counters.errors.incrementAndGet();
    // Some failures repeat on every turn: the pause keeps them from spinning.
    log.warn("zmq transport poller error, continuing error={}", e.toString(), e);
    return true;
  }

  @Override
  protected void crashed(Throwable e) {
    counters.errors.incrementAndGet();
    log.error(
        "zmq transport poller crashed, restarting it after a back-off crashes={}", crashes(), e);
  }

  @Override
  protected void afterLoop() {
    try {
      closeAll();
      if (context != null) {
        context.close();
      }
    } catch (RuntimeException e) {
      counters.errors.incrementAndGet();
      log.error("zmq transport poller failed", e);
    } finally {
      context = null;
      view = List.of();
      // A restart after a crash opens every source again on a fresh context.
      sources.clear();
      polled = new ZmqSource[0];
      poller = null;
      pollerStale = true;
      appliedGeneration = -1;
    }
  }

  private void applyPendingWorkers() {
    Pending p = pending.get();
    if (p.generation() == appliedGeneration) {
      return;
    }
    Map<ZmqSource.Key, WorkerInfo> wanted = new LinkedHashMap<>();
    for (WorkerInfo w : p.workers()) {
      if (w.zmqEndpoint() == null || w.zmqEndpoint().isBlank()) {
        continue;
      }
      for (int rank = 0; rank < w.dpSize(); rank++) {
        try {
          wanted.put(ZmqSource.Key.of(w, rank), w);
        } catch (IllegalArgumentException e) {
          counters.connectFailures.incrementAndGet();
          log.warn(
              "zmq source skipped worker={} rank={} endpoint={} error={}",
              w.id(),
              rank,
              w.zmqEndpoint(),
              e.getMessage());
        }
      }
    }
    List<ZmqSource> removed = new ArrayList<>();
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
      for (ZmqSource s : removed) {
        closeSource(s);
        log.info(
            "zmq source removed worker={} rank={} endpoint={} messages={} last_seq={}",
            s.key.worker(),
            s.key.rank(),
            s.key.endpoint(),
            s.messages,
            s.lastSeqOrMinusOne());
      }
    }
    for (ZmqSource.Key key : wanted.keySet()) {
      if (!sources.containsKey(key)) {
        ZmqSource s = new ZmqSource(key);
        sources.put(key, s);
        connect(s);
      }
    }
    view = List.copyOf(sources.values());
    appliedGeneration = p.generation();
  }

  private void connect(ZmqSource s) {
    ZMQ.Socket sub = context.createSocket(SocketType.SUB);
    sub.setLinger(0);
    sub.setRcvHWM(settings.receiveHighWaterMark());
    sub.setReconnectIVL((int) settings.reconnectInterval().toMillis());
    sub.setReconnectIVLMax((int) settings.reconnectIntervalMax().toMillis());
    sub.setHandshakeIvl((int) settings.handshakeInterval().toMillis());
    sub.subscribe(ZMQ.SUBSCRIPTION_ALL);
    try {
      if (settings.bindSub()) {
        // The engine's PUB connects to us (docs/contracts.md, "KV-event sockets"); a port still
        // held (a previous socket's linger) throws and is retried like a failed connect.
        sub.bind(s.key.endpoint());
      } else {
        sub.connect(s.key.endpoint());
      }
    } catch (RuntimeException e) {
      // jeromq resolves host names synchronously: an unknown host throws here, ZMQ won't retry.
      sub.close();
      counters.connectFailures.incrementAndGet();
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
    for (ZmqSource s : sources.values()) {
      if (s.sub == null && now - s.retryConnectAtNanos >= 0) {
        connect(s);
      }
    }
  }

  private void rebuildPoller() {
    closePoller();
    List<ZmqSource> open = new ArrayList<>();
    for (ZmqSource s : sources.values()) {
      if (s.sub != null) {
        open.add(s);
      }
    }
    polled = open.toArray(new ZmqSource[0]);
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
    polled = new ZmqSource[0];
    pollerStale = true;
  }

  private void closeSource(ZmqSource s) {
    s.connected = false;
    if (s.sub != null) {
      try {
        s.sub.close();
      } catch (RuntimeException e) {
        counters.errors.incrementAndGet();
        log.warn("zmq source close failed worker={} rank={}", s.key.worker(), s.key.rank(), e);
      }
      s.sub = null;
    }
  }

  private void closeAll() {
    closePoller();
    for (ZmqSource s : sources.values()) {
      closeSource(s);
    }
    sources.clear();
  }

  private void drain(ZmqSource s) {
    for (int i = 0; i < MAX_MESSAGES_PER_TURN && running(); i++) {
      byte[] first = s.sub.recv(ZMQ.DONTWAIT);
      if (first == null) {
        return;
      }
      List<byte[]> frames = ReplayClient.readRest(s.sub, first);
      counters.messagesReceived.incrementAndGet();
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
      if (frames.size() == 3 && frames.get(1).length == 8 && !sequenced(s, frames)) {
        continue;
      }
      deliver(s, new Delivery.Live(s.key.worker(), s.key.rank(), frames));
    }
  }

  /**
   * Judges a sequenced message, replays what it shows missing before it, and moves the source's
   * position.
   *
   * @return false when it is to be skipped (an idle probe delivered it already)
   */
  private boolean sequenced(ZmqSource s, List<byte[]> frames) {
    byte[] topic = frames.get(0);
    s.topic = topic;
    long seq = ReplayClient.seqOf(frames.get(1));
    long last = s.lastSeq;
    SequenceCheck.Verdict v =
        SequenceCheck.check(
            last, seq, s.probedFrom, s.probedThrough, settings.catchUpOnFirstMessage());
    switch (v.kind()) {
      case PROBED -> {
        counters.probeDuplicates.incrementAndGet();
        return false;
      }
      case FIRST -> fill(s, v, topic, Replays.Reason.CATCH_UP);
      case GAP -> {
        counters.sequenceGaps.incrementAndGet();
        fill(s, v, topic, Replays.Reason.GAP);
      }
      case RESTART -> {
        counters.engineRestarts.incrementAndGet();
        log.info(
            "zmq source sequence went down, engine restarted worker={} rank={} last_seq={} seq={}",
            s.key.worker(),
            s.key.rank(),
            last,
            seq);
        fill(s, v, topic, Replays.Reason.RESTART);
      }
      case IN_ORDER, UNSEQUENCED -> {}
    }
    s.probedThrough = -1;
    if (v.kind() != SequenceCheck.Kind.UNSEQUENCED) {
      s.lastSeq = seq;
    }
    return true;
  }

  private void fill(ZmqSource s, SequenceCheck.Verdict v, byte[] topic, Replays.Reason reason) {
    if (v.fills()) {
      replays.fill(context, s, v.fillFrom(), v.fillTo(), topic, reason);
    }
  }

  private void deliverReplayed(ZmqSource s, List<byte[]> frames) {
    deliver(s, new Delivery.Replayed(s.key.worker(), s.key.rank(), frames));
  }

  private void deliver(ZmqSource s, Delivery d) {
    try {
      sink.accept(d);
    } catch (RuntimeException e) {
      counters.errors.incrementAndGet();
      log.warn(
          "zmq event sink failed, message dropped worker={} rank={} replayed={}",
          s.key.worker(),
          s.key.rank(),
          d instanceof Delivery.Replayed,
          e);
    }
  }
}
