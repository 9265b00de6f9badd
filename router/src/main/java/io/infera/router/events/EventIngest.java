package io.infera.router.events;

import io.infera.router.kv.DropReason;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEventDecoder;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The index's single writer: transports enqueue raw messages; one thread (named {@code
 * infera-kv-writer}) decodes them and applies them to the {@link PrefixIndex}, together with the
 * fleet's purges and snapshot seeds, in arrival order. Messages and snapshots of workers discovery
 * does not (or no longer) know are dropped, so a late message cannot resurrect a purged worker; so
 * are those of a rank at or above the worker's data-parallel size ({@link
 * DropReason#RANK_OUT_OF_RANGE}), so a forged rank cannot make the index grow a view.
 *
 * <p>Health: a command that throws an exception is skipped, counted ({@code
 * infera.kv.writer.errors}) and logged at ERROR (at most once a minute). An {@link Error} ends the
 * writer: the index's views are then unknown, so {@link #writerProblem()} says so (the router stops
 * being ready, {@code infera.kv.writer.dead} is 1), it is logged at ERROR once, and later commands
 * are dropped (counted) instead of blocking their transports on a queue nobody drains.
 *
 * <p>It also keeps each known worker's event lag (engine batch timestamp to application) and binds
 * it as {@code infera.kv.event.lag} per worker.
 */
public final class EventIngest implements EventSink, MeterBinder, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EventIngest.class);

  /** Largest data-parallel size (the config's bound), assumed when discovery gives none. */
  public static final int MAX_DP_SIZE = 1024;

  private sealed interface Command {}

  /**
   * @param rank the source's rank when the transport knows it, else {@link Delivery#UNKNOWN_RANK}
   *     (the batch's rank is used)
   * @param streamSeq the stream sequence, or -1 (for logs)
   */
  private record Message(WorkerId worker, int rank, long streamSeq, List<byte[]> frames)
      implements Command {}

  private record Seed(WorkerId worker, int rank, ViewSnapshot snapshot) implements Command {}

  /** Discovery's workers with their data-parallel sizes, and the ones to purge. */
  private record Workers(Map<WorkerId, Integer> current, Set<WorkerId> purge) implements Command {}

  private record Flush(CompletableFuture<Void> done) implements Command {}

  /** A read of the index on the writer thread, the only thread that may see a view whole. */
  private record Read<T>(Function<PrefixIndex, T> read, CompletableFuture<T> result)
      implements Command {
    void run(PrefixIndex index) {
      try {
        result.complete(read.apply(index));
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
      }
    }
  }

  private record Stop() implements Command {}

  /** A worker's last event lag, and its gauge once bound. */
  private static final class Lag {
    volatile double seconds;
    volatile Gauge gauge;
  }

  private final PrefixIndex index;
  private final Clock clock;
  private final BlockingQueue<Command> queue;
  private final Thread thread;
  private final Map<WorkerId, AtomicLong> applied = new ConcurrentHashMap<>();
  private final AtomicLong unknownSource = new AtomicLong();
  private final AtomicLong decodeErrors = new AtomicLong();
  private final AtomicLong seeded = new AtomicLong();
  private final AtomicLong rejectedSnapshots = new AtomicLong();
  // Written by workers() (the caller's thread) and, for values, the writer thread.
  private final Map<WorkerId, Lag> lags = new ConcurrentHashMap<>();
  private volatile MeterRegistry registry;
  // Writer thread: discovered workers and their data-parallel sizes.
  private Map<WorkerId, Integer> known = new HashMap<>();
  private volatile boolean closed;
  private final AtomicLong writerErrors = new AtomicLong();
  private final AtomicLong abandoned = new AtomicLong();
  private volatile String writerDeath;
  private long lastErrorLogNanos;
  // The command being applied (writer thread): failed with the writer if it dies on it.
  private Command current;
  private boolean errorLogged;

  /**
   * @param capacity queued messages before transports block (their own buffers then fill)
   */
  public EventIngest(PrefixIndex index, int capacity) {
    this(index, capacity, Clock.systemUTC());
  }

  /**
   * @param clock the wall clock engine timestamps are compared with (event lag)
   */
  public EventIngest(PrefixIndex index, int capacity, Clock clock) {
    this.index = index;
    this.clock = clock;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::run, "infera-kv-writer");
    this.thread.setDaemon(true);
  }

  public EventIngest start() {
    thread.start();
    return this;
  }

  /**
   * Queues a delivery for the writer. Messages are applied to source (worker, rank) with the rank
   * the transport knows (the socket's or the subject's), else the batch's own. A snapshot replaces
   * the source's view ({@link PrefixIndex#seed}); it is dropped (and counted) when the worker is
   * unknown by then or its block size is not the index's.
   */
  @Override
  public void accept(Delivery d) {
    if (closed) {
      return;
    }
    Command c;
    if (d instanceof Delivery.Live l) {
      c = new Message(l.worker(), l.socketRank(), -1, l.frames());
    } else if (d instanceof Delivery.Replayed r) {
      c = new Message(r.worker(), r.socketRank(), -1, r.frames());
    } else if (d instanceof Delivery.Streamed s) {
      c = new Message(s.worker(), s.rank(), s.streamSeq(), s.frames());
    } else {
      Delivery.Snapshot s = (Delivery.Snapshot) d;
      c = new Seed(s.worker(), s.rank(), s.snapshot());
    }
    enqueue(c);
  }

  /**
   * The workers discovery knows now; sources of {@code removed} workers are purged from the index
   * (in order with the messages already queued).
   */
  public void workers(Set<WorkerId> current, Set<WorkerId> removed) {
    Map<WorkerId, Integer> sizes = new HashMap<>();
    for (WorkerId w : current) {
      sizes.put(w, MAX_DP_SIZE);
    }
    workers(sizes, removed);
  }

  /**
   * As {@link #workers(Set, Set)} with each worker's data-parallel size: batches and snapshots of
   * ranks at or above it are dropped ({@link DropReason#RANK_OUT_OF_RANGE}).
   */
  public void workers(Map<WorkerId, Integer> dpSizes, Set<WorkerId> removed) {
    Set<WorkerId> current = dpSizes.keySet();
    for (WorkerId w : removed) {
      Lag l = lags.remove(w);
      MeterRegistry r = registry;
      if (l != null && l.gauge != null && r != null) {
        r.remove(l.gauge);
      }
    }
    for (WorkerId w : current) {
      if (!removed.contains(w) && !lags.containsKey(w)) {
        Lag l = new Lag();
        lags.put(w, l);
        bindLag(w, l);
      }
    }
    enqueue(new Workers(Map.copyOf(dpSizes), Set.copyOf(removed)));
  }

  /** Binds {@code infera.kv.event.lag} of every worker known now and later. */
  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    this.registry = registry;
    FunctionCounter.builder("infera.kv.writer.errors", this, EventIngest::writerErrors)
        .description("index writer commands that threw and were skipped")
        .register(registry);
    FunctionCounter.builder("infera.kv.writer.abandoned", this, EventIngest::abandonedCommands)
        .description("index writer commands dropped because the writer had died")
        .register(registry);
    Gauge.builder("infera.kv.writer.dead", this, i -> i.writerDeath == null ? 0 : 1)
        .description("1 once the index writer thread died (the router is then not ready)")
        .register(registry);
    lags.forEach(this::bindLag);
  }

  private synchronized void bindLag(WorkerId worker, Lag lag) {
    MeterRegistry r = registry;
    if (r == null || lag.gauge != null) {
      return;
    }
    lag.gauge =
        Gauge.builder("infera.kv.event.lag", lag, l -> l.seconds)
            .description("seconds between an engine's batch timestamp and its application")
            .baseUnit("seconds")
            .tag("worker", worker.value())
            .register(r);
  }

  /**
   * The last event lag of a known worker: seconds from a batch's engine timestamp to its
   * application (0 before the first timestamped batch); null for a worker discovery does not know.
   */
  public Double eventLagSeconds(WorkerId worker) {
    Lag l = lags.get(worker);
    return l == null ? null : l.seconds;
  }

  /** Completes when everything queued before this call has been applied (tests, shutdown). */
  @Override
  public CompletableFuture<Void> flush() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    if (closed) {
      f.complete(null);
      return f;
    }
    enqueue(new Flush(f));
    return f;
  }

  /**
   * Runs {@code read} on the writer thread once everything queued before this call is applied
   * (writer-only index reads such as {@link PrefixIndex#viewHashes}, from tests and tools).
   */
  public <T> CompletableFuture<T> onWriter(Function<PrefixIndex, T> read) {
    CompletableFuture<T> f = new CompletableFuture<>();
    if (closed) {
      f.completeExceptionally(new IllegalStateException("the ingest is closed"));
      return f;
    }
    enqueue(new Read<>(read, f));
    return f;
  }

  /** Batches applied from a worker (all ranks). */
  public long applied(WorkerId worker) {
    AtomicLong a = applied.get(worker);
    return a == null ? 0 : a.get();
  }

  public long unknownSourceMessages() {
    return unknownSource.get();
  }

  public long decodeErrors() {
    return decodeErrors.get();
  }

  /** Snapshots seeded into the index. */
  public long seededSnapshots() {
    return seeded.get();
  }

  /** Snapshots not seeded: unknown worker, or a block size that is not the index's. */
  public long rejectedSnapshots() {
    return rejectedSnapshots.get();
  }

  /** Commands that threw on the writer and were skipped. */
  public long writerErrors() {
    return writerErrors.get();
  }

  /** Commands dropped because the writer had died. */
  public long abandonedCommands() {
    return abandoned.get();
  }

  /** Why the writer is dead (the error that ended it), or null while it runs. Any thread. */
  public String writerProblem() {
    String d = writerDeath;
    return d == null ? null : "index writer thread died (" + d + "): the index's views are unknown";
  }

  /** Messages waiting to be applied. */
  public int backlog() {
    return queue.size();
  }

  private void enqueue(Command c) {
    try {
      // Not put(): a writer that died while a transport waits here must not freeze the transport.
      while (!queue.offer(c, 100, TimeUnit.MILLISECONDS)) {
        if (writerDeath != null) {
          abandon(c);
          return;
        }
      }
      if (writerDeath != null) {
        abandonQueued();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void abandon(Command c) {
    abandoned.incrementAndGet();
    IllegalStateException dead = new IllegalStateException(writerProblem());
    if (c instanceof Flush f) {
      f.done().completeExceptionally(dead);
    } else if (c instanceof Read<?> r) {
      r.result().completeExceptionally(dead);
    }
  }

  private void abandonQueued() {
    Command c;
    while ((c = queue.poll()) != null) {
      abandon(c);
    }
  }

  private void run() {
    try {
      loop();
    } catch (Throwable e) {
      // An Error on the writer (out of memory, a stack overflow): what the index holds now is not
      // known to match the events, so the router stops being ready instead of routing on it.
      writerDeath = e.toString();
      log.error("kv writer thread died, the router is not ready any more error={}", e, e);
      if (current != null) {
        abandon(current);
      }
      abandonQueued();
    }
  }

  private void loop() {
    while (true) {
      Command c;
      try {
        c = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      current = c;
      try {
        if (c instanceof Message m) {
          apply(m);
        } else if (c instanceof Workers w) {
          known = new HashMap<>(w.current());
          for (WorkerId gone : w.purge()) {
            index.purge(gone);
            applied.remove(gone);
            log.info("kv purge worker={}", gone);
          }
        } else if (c instanceof Seed s) {
          seed(s);
        } else if (c instanceof Flush f) {
          f.done().complete(null);
        } else if (c instanceof Read<?> r) {
          r.run(index);
        } else if (c instanceof Stop) {
          return;
        }
      } catch (RuntimeException e) {
        // A bug must not stop the writer: count, log and carry on with the next command.
        writerErrors.incrementAndGet();
        logWriterError(c, e);
      }
    }
  }

  private void logWriterError(Command c, RuntimeException e) {
    long now = System.nanoTime();
    if (errorLogged && now - lastErrorLogNanos < TimeUnit.MINUTES.toNanos(1)) {
      log.debug("kv writer failed on {}: {}", c.getClass().getSimpleName(), e.toString());
      return;
    }
    errorLogged = true;
    lastErrorLogNanos = now;
    log.error(
        "kv writer failed on {}, skipped errors={} (logged at most once a minute)",
        c.getClass().getSimpleName(),
        writerErrors.get(),
        e);
  }

  private void seed(Seed s) {
    Integer dp = known.get(s.worker());
    if (dp == null) {
      rejectedSnapshots.incrementAndGet();
      log.debug("kv seed dropped, unknown worker={} rank={}", s.worker(), s.rank());
      return;
    }
    if (s.rank() < 0 || s.rank() >= dp) {
      rejectedSnapshots.incrementAndGet();
      index.reject(s.worker(), DropReason.RANK_OUT_OF_RANGE);
      log.debug(
          "kv seed dropped, rank out of range worker={} rank={} dp_size={}",
          s.worker(),
          s.rank(),
          dp);
      return;
    }
    if (!index.acceptsSnapshot(new SourceId(s.worker(), s.rank()), s.snapshot())) {
      // A size new to a fleet that already uses PrefixIndex.MAX_BLOCK_SIZES sizes.
      rejectedSnapshots.incrementAndGet();
      log.warn(
          "kv seed dropped, block size not usable worker={} rank={} block_size={} page_size={}",
          s.worker(),
          s.rank(),
          s.snapshot().blockSize(),
          index.pageSize());
      return;
    }
    index.seed(new SourceId(s.worker(), s.rank()), s.snapshot());
    seeded.incrementAndGet();
    // DEBUG: the transport logs each seed at INFO already (one line per source, not two).
    log.debug(
        "kv seed worker={} rank={} pairs={} engine_seq={} stream_seq={}",
        s.worker(),
        s.rank(),
        s.snapshot().size(),
        s.snapshot().engineSeq() == KvEventMessage.NO_SEQ ? "none" : s.snapshot().engineSeq(),
        s.snapshot().streamSeq());
  }

  private void apply(Message m) {
    Integer dp = known.get(m.worker());
    if (dp == null) {
      unknownSource.incrementAndGet();
      return;
    }
    KvEventMessage msg;
    EventBatch batch;
    try {
      msg = KvEventMessage.fromFrames(m.frames());
      if (msg.isReplayEnd()) {
        return;
      }
      batch = KvEventDecoder.decode(msg.payload());
    } catch (EventDecodeException e) {
      decodeErrors.incrementAndGet();
      index.recordDecodeError(m.worker());
      log.debug(
          "kv decode error worker={} stream_seq={} kind={} msg={}",
          m.worker(),
          m.streamSeq(),
          e.label(),
          e.getMessage());
      return;
    }
    if (m.rank() >= 0 && (batch.dpRank() == null || batch.dpRank() != m.rank())) {
      if (batch.dpRank() != null) {
        log.debug(
            "kv batch rank differs from its source, source wins worker={} rank={} batch_rank={}",
            m.worker(),
            m.rank(),
            batch.dpRank());
      }
      batch = batch.withRank(m.rank());
    }
    if (batch.rank() >= dp) {
      index.reject(m.worker(), DropReason.RANK_OUT_OF_RANGE);
      log.debug(
          "kv batch dropped, rank out of range worker={} rank={} dp_size={}",
          m.worker(),
          batch.rank(),
          dp);
      return;
    }
    index.apply(m.worker(), msg.seq(), batch);
    applied.computeIfAbsent(m.worker(), w -> new AtomicLong()).incrementAndGet();
    Lag lag = lags.get(m.worker());
    if (lag != null && batch.ts() > 0) {
      lag.seconds = Math.max(0, clock.millis() / 1000.0 - batch.ts());
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    queue.offer(new Stop());
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
