package io.infera.router.relay;

import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.Backoff;
import io.infera.router.events.Delivery;
import io.infera.router.events.EventSink;
import io.infera.router.events.zmq.ZmqSettings;
import io.infera.router.events.zmq.ZmqSourceStatus;
import io.infera.router.events.zmq.ZmqTransport;
import io.infera.router.nats.RelayProtocol;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code infera-router relay}: moves one engine's KV events from its ZMQ sockets to NATS JetStream,
 * keeps the worker's view and writes its snapshots (docs/contracts.md, "NATS event plane"; {@link
 * RelayProtocol}).
 *
 * <p>Lifecycle: {@link #start()} returns at once; the publishing thread connects to NATS (retrying
 * forever), creates the stream and bucket when missing, rebuilds the view from the bucket and the
 * stream, and only then subscribes to the engine (its catch-up replay covers what the engine
 * published meanwhile). {@link #close()} stops the subscription, publishes what is buffered (within
 * {@link RelayOptions#drainTimeout()}), writes final snapshots and closes NATS.
 *
 * <p>Threads: the ZMQ poller ({@value ZmqTransport#THREAD_NAME}) filters duplicates and queues
 * batches; {@value #PUBLISHER_THREAD} publishes, applies acknowledged batches to the view and
 * decides snapshots; {@value SnapshotWriter#THREAD_NAME} writes them. The queue holds at most twice
 * {@link RelayOptions#bufferBatches()}; the publisher folds it into the view long before, so the
 * poller blocks (leaving messages to ZMQ's own buffer) only if the publisher stalls.
 */
public final class Relay implements AutoCloseable {

  /** Name of the publishing thread. */
  public static final String PUBLISHER_THREAD = "infera-relay-publisher";

  private static final Logger log = LoggerFactory.getLogger(Relay.class);
  private static final long STEP_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final RelayOptions options;
  private final StreamClient client;
  private final ZmqSettings zmqSettings;
  private final RelayCounters counters = new RelayCounters();
  private final RelayBuffer queue;
  private final WorkerView view;
  private final SnapshotWriter snapshots;
  private final PublishLoop loop;
  private volatile IngestFilter filter;
  private volatile ZmqTransport transport;
  private volatile boolean ready;
  private volatile boolean ingestClosed;
  private volatile boolean stopping;
  private Thread publisher;
  private boolean started;
  private boolean closed;

  /** A relay publishing through a real NATS connection. */
  public Relay(RelayOptions options) {
    this(options, new NatsStreamClient(options), ZmqSettings.defaults());
  }

  /**
   * A relay publishing through a real NATS connection whose SUB sockets bind the KV-event endpoint
   * ({@code --zmq-mode bind}) or connect to it.
   */
  public Relay(RelayOptions options, boolean bindSub) {
    this(options, new NatsStreamClient(options), ZmqSettings.defaults().withBindSub(bindSub));
  }

  Relay(RelayOptions options, StreamClient client, ZmqSettings zmqSettings) {
    this.options = Objects.requireNonNull(options, "options");
    this.client = Objects.requireNonNull(client, "client");
    this.zmqSettings = Objects.requireNonNull(zmqSettings, "zmqSettings");
    int bound = options.bufferBatches();
    // Twice the publisher's bounds: it folds at those, this only holds the poller if it stalls.
    this.queue =
        new RelayBuffer(
            Math.max(2 * bound, bound + 1024),
            Math.max(2 * options.bufferBytes(), options.bufferBytes() + (1L << 20)));
    this.view = new WorkerView(options.workerId(), options.blockSize(), counters);
    this.snapshots = new SnapshotWriter(client, options, counters);
    String runId = UUID.randomUUID().toString().substring(0, 8);
    this.loop = new PublishLoop(options, client, view, snapshots, counters, queue, runId);
  }

  public RelayOptions options() {
    return options;
  }

  /** Starts the publishing thread (which connects, recovers, then subscribes). */
  public synchronized void start() {
    if (closed) {
      throw new IllegalStateException("relay is closed");
    }
    if (started) {
      throw new IllegalStateException("relay already started");
    }
    started = true;
    publisher = new Thread(this::runPublisher, PUBLISHER_THREAD);
    publisher.setDaemon(true);
    publisher.start();
  }

  /**
   * False once the publishing thread has ended (after {@link #close()}, or on a failure it could
   * not handle): the process should then exit so that it is restarted.
   */
  public synchronized boolean alive() {
    return started && !closed && publisher != null && publisher.isAlive();
  }

  /** True while the NATS connection is up. */
  public boolean natsConnected() {
    return client.connected();
  }

  /** True once the view is recovered and the engine's sockets are subscribed. */
  public boolean ready() {
    return ready;
  }

  /** The counters now. Any thread. */
  public RelayStats stats() {
    ZmqTransport t = transport;
    counters.natsReconnects.set(client.reconnects());
    return counters.snapshot(
        loop.buffered(), loop.bufferedBytes(), t == null ? null : t.counters());
  }

  /** The ZMQ transport's source status (empty before {@link #ready()}). */
  public List<ZmqSourceStatus> zmqSources() {
    ZmqTransport t = transport;
    return t == null ? List.of() : t.sources();
  }

  @Override
  public void close() {
    Thread p;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      p = publisher;
    }
    ingestClosed = true;
    ZmqTransport t = transport;
    if (t != null) {
      t.close();
    }
    stopping = true;
    if (p != null) {
      try {
        p.join(options.drainTimeout().toMillis() + 2 * options.publishTimeout().toMillis() + 2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (p.isAlive()) {
        log.warn("relay publisher did not stop thread={}", p.getName());
      }
    }
    snapshots.close();
    client.close();
    log.info("relay closed stats={}", stats());
  }

  // ---------------------------------------------------------------- publishing thread

  private void runPublisher() {
    try {
      log.info(
          "relay starting worker={} engine={} block_size={} dp_size={} zmq={} replay={} nats={}"
              + " stream={} bucket={} subject={}",
          options.workerId(),
          options.engine(),
          options.blockSize(),
          options.dpSize(),
          options.zmqEndpoint(),
          options.replayEndpoint(),
          options.natsUrl(),
          options.stream(),
          options.snapshotBucket(),
          options.subject(0));
      if (!client.connect(() -> !stopping)) {
        return;
      }
      Map<Integer, IngestFilter.Resume> resume = null;
      Backoff backoff = new Backoff(options.reconnectWait(), options.reconnectWaitMax());
      int failures = 0;
      while (!stopping && resume == null) {
        try {
          client.setup();
          resume = loop.recover();
        } catch (Exception e) {
          long wait = backoff.delayMillis(++failures);
          log.warn(
              "relay start-up against jetstream failed, retrying retry_ms={} error={}",
              wait,
              e.toString());
          Thread.sleep(wait);
        }
      }
      if (stopping) {
        return;
      }
      filter = new IngestFilter(options.dpSize(), resume, counters);
      snapshots.start();
      subscribe();
      ready = true;
      log.info("relay running worker={} subject={}", options.workerId(), options.subject(0));
      while (!stopping) {
        loop.step(STEP_WAIT_NANOS);
      }
      drain();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("relay publisher failed", e);
    } finally {
      ready = false;
    }
  }

  private void subscribe() {
    ZmqTransport t = new ZmqTransport(zmqSettings);
    transport = t;
    t.start(new Sink());
    WorkerInfo self =
        new WorkerInfo(
            options.workerId(),
            "relay://" + options.workerId(),
            Role.MIXED,
            options.engine(),
            options.dpSize(),
            options.zmqEndpoint(),
            options.replayEndpoint(),
            WorkerInfo.Readiness.READY,
            "relay");
    t.workersChanged(List.of(self));
    if (ingestClosed) {
      // close() ran while we were starting and did not see the transport.
      t.close();
    }
  }

  private void drain() throws InterruptedException {
    long deadline = System.nanoTime() + options.drainTimeout().toNanos();
    while (!loop.idle() && System.nanoTime() - deadline < 0) {
      loop.step(Math.min(STEP_WAIT_NANOS, deadline - System.nanoTime()));
    }
    if (!loop.idle()) {
      log.warn(
          "relay closing with batches not stored {} (on the next start the engine's replay buffer"
              + " fills what it still holds)",
          loop.leftover());
    }
    loop.finalSnapshots();
    long left = Math.max(deadline - System.nanoTime(), TimeUnit.SECONDS.toNanos(1));
    if (!snapshots.awaitIdle(left)) {
      log.warn("relay closing before the final snapshots were written");
    }
  }

  // ---------------------------------------------------------------- ZMQ poller thread

  private void ingest(int rank, List<byte[]> frames, boolean replayed) {
    for (RelayBatch b : filter.accept(rank, frames, replayed, System.nanoTime())) {
      enqueue(b);
    }
  }

  private void enqueue(RelayBatch b) {
    if (queue.offer(b)) {
      return;
    }
    // The publisher is behind its own overflow handling: hold the poller; ZMQ buffers meanwhile.
    while (!ingestClosed) {
      try {
        if (queue.offer(b, 50, TimeUnit.MILLISECONDS)) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    log.warn("relay closing, batch not queued rank={} engine_seq={}", b.rank(), b.engineSeq());
  }

  /** Receives from the ZMQ transport, on its poller thread. */
  private final class Sink implements EventSink {
    @Override
    public void accept(Delivery d) {
      if (d instanceof Delivery.Live l) {
        ingest(rankOf(l.socketRank()), l.frames(), false);
      } else if (d instanceof Delivery.Replayed r) {
        ingest(rankOf(r.socketRank()), r.frames(), true);
      }
      // The ZMQ transport delivers nothing else.
    }

    private int rankOf(int socketRank) {
      return socketRank == Delivery.UNKNOWN_RANK ? 0 : socketRank;
    }
  }

  // ---------------------------------------------------------------- tests

  /** The relay's view of {@code rank}, sorted router hashes. Only once closed (single writer). */
  long[] viewHashes(int rank) {
    return view.hashes(rank);
  }

  PublishLoop loop() {
    return loop;
  }
}
