package io.infera.router.events;

import io.infera.router.admin.RouterMetrics;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEventDecoder;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The index's single writer: transports enqueue raw messages; one thread (named {@code
 * infera-kv-writer}) decodes them and applies them to the {@link PrefixIndex}, together with the
 * fleet's purges and snapshot seeds, in arrival order. Messages and snapshots of workers discovery
 * does not (or no longer) know are dropped, so a late message cannot resurrect a purged worker.
 */
public final class EventIngest implements EventSink, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EventIngest.class);

  private sealed interface Command {}

  /**
   * @param rank the source's rank when the transport knows it authoritatively, else -1 (the batch's
   *     rank is used)
   * @param streamSeq the stream sequence, or -1 (for logs)
   */
  private record Message(WorkerId worker, int rank, long streamSeq, List<byte[]> frames)
      implements Command {}

  private record Seed(WorkerId worker, int rank, ViewSnapshot snapshot) implements Command {}

  private record Workers(Set<WorkerId> current, Set<WorkerId> purge) implements Command {}

  private record Flush(CompletableFuture<Void> done) implements Command {}

  private record Stop() implements Command {}

  private final PrefixIndex index;
  private final RouterMetrics metrics;
  private final BlockingQueue<Command> queue;
  private final Thread thread;
  private final Map<WorkerId, AtomicLong> applied = new ConcurrentHashMap<>();
  private final AtomicLong unknownSource = new AtomicLong();
  private final AtomicLong decodeErrors = new AtomicLong();
  private final AtomicLong seeded = new AtomicLong();
  private final AtomicLong rejectedSnapshots = new AtomicLong();
  private final AtomicLong lastAppliedNanos = new AtomicLong();
  private Set<WorkerId> known = new HashSet<>();
  private volatile boolean closed;

  /**
   * @param metrics where to report event lag, or null
   * @param capacity queued messages before transports block (their own buffers then fill)
   */
  public EventIngest(PrefixIndex index, RouterMetrics metrics, int capacity) {
    this.index = index;
    this.metrics = metrics;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::run, "infera-kv-writer");
    this.thread.setDaemon(true);
  }

  public EventIngest start() {
    thread.start();
    return this;
  }

  @Override
  public void accept(WorkerId worker, List<byte[]> frames) {
    if (closed) {
      return;
    }
    enqueue(new Message(worker, -1, -1, frames));
  }

  /** Queues a stream message whose source rank is {@code rank}, whatever the batch says. */
  @Override
  public void acceptStreamed(WorkerId worker, int rank, long streamSeq, List<byte[]> frames) {
    if (rank < 0) {
      throw new IllegalArgumentException("rank must be >= 0, got " + rank);
    }
    if (closed) {
      return;
    }
    enqueue(new Message(worker, rank, streamSeq, frames));
  }

  /**
   * Queues a seed: the writer replaces the source's view by {@code snapshot} ({@link
   * PrefixIndex#seed}). Dropped (and counted) when the worker is unknown by then or the snapshot's
   * block size is not the index's.
   */
  @Override
  public void acceptSnapshot(WorkerId worker, int rank, ViewSnapshot snapshot) {
    if (closed) {
      return;
    }
    enqueue(new Seed(worker, rank, snapshot));
  }

  /**
   * The workers discovery knows now; sources of {@code removed} workers are purged from the index
   * (in order with the messages already queued).
   */
  public void workers(Set<WorkerId> current, Set<WorkerId> removed) {
    enqueue(new Workers(Set.copyOf(current), Set.copyOf(removed)));
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

  /** Messages waiting to be applied. */
  public int backlog() {
    return queue.size();
  }

  private void enqueue(Command c) {
    try {
      queue.put(c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    while (true) {
      Command c;
      try {
        c = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      try {
        if (c instanceof Message m) {
          apply(m);
        } else if (c instanceof Workers w) {
          known = new HashSet<>(w.current());
          for (WorkerId gone : w.purge()) {
            index.purge(gone);
            applied.remove(gone);
            log.info("kv purge worker={}", gone);
          }
        } else if (c instanceof Seed s) {
          seed(s);
        } else if (c instanceof Flush f) {
          f.done().complete(null);
        } else if (c instanceof Stop) {
          return;
        }
      } catch (RuntimeException e) {
        // A bug must not stop the writer: log and carry on with the next message.
        log.error("kv writer failed on {}: {}", c.getClass().getSimpleName(), e.toString(), e);
      }
    }
  }

  private void seed(Seed s) {
    if (!known.contains(s.worker())) {
      rejectedSnapshots.incrementAndGet();
      log.debug("kv seed dropped, unknown worker={} rank={}", s.worker(), s.rank());
      return;
    }
    if (s.snapshot().blockSize() != index.pageSize()) {
      rejectedSnapshots.incrementAndGet();
      log.warn(
          "kv seed dropped worker={} rank={} block_size={} page_size={}",
          s.worker(),
          s.rank(),
          s.snapshot().blockSize(),
          index.pageSize());
      return;
    }
    index.seed(new SourceId(s.worker(), s.rank()), s.snapshot());
    seeded.incrementAndGet();
    lastAppliedNanos.set(System.nanoTime());
    log.info(
        "kv seed worker={} rank={} pairs={} engine_seq={} stream_seq={}",
        s.worker(),
        s.rank(),
        s.snapshot().size(),
        s.snapshot().engineSeq() == KvEventMessage.NO_SEQ ? "none" : s.snapshot().engineSeq(),
        s.snapshot().streamSeq());
  }

  private void apply(Message m) {
    if (!known.contains(m.worker())) {
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
      batch = new EventBatch(batch.ts(), batch.events(), m.rank(), batch.unknownEvents());
    }
    index.apply(m.worker(), msg.seq(), batch);
    applied.computeIfAbsent(m.worker(), w -> new AtomicLong()).incrementAndGet();
    lastAppliedNanos.set(System.nanoTime());
    if (metrics != null && batch.ts() > 0) {
      metrics.eventLag(m.worker(), Math.max(0, System.currentTimeMillis() / 1000.0 - batch.ts()));
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
