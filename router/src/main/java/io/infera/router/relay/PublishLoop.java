package io.infera.router.relay;

import io.infera.router.events.Backoff;
import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.nats.NatsHeaders;
import io.infera.router.nats.RelayProtocol;
import io.infera.router.relay.StreamClient.Ack;
import io.infera.router.relay.StreamClient.Outbound;
import io.infera.router.relay.StreamClient.Stored;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publishing thread's work: takes batches in arrival order from the ingest queue, publishes
 * them with a bounded window of unacknowledged JetStream publishes, applies each acknowledged batch
 * to the relay's view (so the view is exactly the stream's content and each rank's watermark is the
 * stream sequence of the last message it includes), schedules snapshots, and handles the failure
 * paths (DESIGN.md §5, {@link RelayProtocol}):
 *
 * <ul>
 *   <li><b>Lost acknowledgements</b> (timeout, error, reconnect): no new publish until the window
 *       is resolved. Its unresolved batches are published again one by one, in order, with the same
 *       {@code Nats-Msg-Id} (a copy that did land is reported as a duplicate and not stored twice)
 *       and with the subject's expected last sequence. When that expectation fails because a later
 *       batch of the subject was stored first (it was queued in the client while the earlier one
 *       was lost with the old connection), the earlier batch cannot be stored in order any more: it
 *       is folded into the view and the rank resyncs.
 *   <li><b>Overflow</b>: when the buffered batches (queued plus unacknowledged) reach {@link
 *       RelayOptions#bufferBatches()}, they are all folded into the view instead of being stored,
 *       and while NATS stays away every new batch is folded too. The affected ranks resync.
 *   <li><b>Resync</b> of a rank, once NATS is up and nothing is in flight: a snapshot of the view
 *       at watermark W (the subject's last stored message it includes) is written, then a marker is
 *       published expecting W as the subject's last sequence. If a batch folded while its fate was
 *       unknown did land after W, the expectation fails: W moves to it (it is in the view already)
 *       and the snapshot is written again. No batch is published while a resync is due.
 * </ul>
 *
 * <p>Threading: everything here runs on the publishing thread, except {@link #buffered()}.
 */
final class PublishLoop {

  private static final Logger log = LoggerFactory.getLogger(PublishLoop.class);
  private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private static final class InFlight {
    final RelayBatch batch;
    final CompletableFuture<Ack> future;
    final long sentNanos;
    final long generation;

    InFlight(RelayBatch batch, CompletableFuture<Ack> future, long sentNanos, long generation) {
      this.batch = batch;
      this.future = future;
      this.sentNanos = sentNanos;
      this.generation = generation;
    }
  }

  /** Per rank: its subject's state as this relay knows it. */
  private static final class RankState {
    final int rank;
    final String subject;

    /** Stream sequence of the subject's last message the view includes: the watermark. */
    long lastStreamSeq;

    boolean resyncPending;
    String resyncReason;
    long resyncSnapshotId;
    long resyncWatermark;
    long resyncEpisode;

    long eventsSinceSnapshot;
    boolean changed;
    long lastSnapshotNanos;

    RankState(int rank, String subject) {
      this.rank = rank;
      this.subject = subject;
    }
  }

  private final RelayOptions options;
  private final StreamClient client;
  private final WorkerView view;
  private final SnapshotWriter snapshots;
  private final RelayCounters counters;
  private final BlockingQueue<RelayBatch> queue;
  private final String runId;
  private final String blockSizeHeader;
  private final long publishTimeoutNanos;
  private final Backoff backoff;
  private final ArrayDeque<InFlight> inflight = new ArrayDeque<>();
  private final RankState[] ranks;
  private volatile RelayBatch taken;
  private boolean recovering;
  private boolean overflowing;
  private int failuresInRow;
  private long retryAtNanos = System.nanoTime();
  private long lastActual;

  PublishLoop(
      RelayOptions options,
      StreamClient client,
      WorkerView view,
      SnapshotWriter snapshots,
      RelayCounters counters,
      BlockingQueue<RelayBatch> queue,
      String runId) {
    this.options = options;
    this.client = client;
    this.view = view;
    this.snapshots = snapshots;
    this.counters = counters;
    this.queue = queue;
    this.runId = runId;
    this.blockSizeHeader = Integer.toString(options.blockSize());
    this.publishTimeoutNanos = options.publishTimeout().toNanos();
    this.backoff = new Backoff(options.reconnectWait(), options.reconnectWaitMax());
    this.ranks = new RankState[options.dpSize()];
    long now = System.nanoTime();
    for (int r = 0; r < ranks.length; r++) {
      ranks[r] = new RankState(r, options.subject(r));
      ranks[r].lastSnapshotNanos = now;
    }
  }

  // ---------------------------------------------------------------- start

  /**
   * Rebuilds each rank's view from its snapshot and the subject's later messages, and returns where
   * the stream ends per rank (for {@link IngestFilter}). Idempotent: a failed attempt may simply be
   * repeated.
   */
  Map<Integer, IngestFilter.Resume> recover() throws Exception {
    Map<Integer, IngestFilter.Resume> resume = new HashMap<>();
    for (RankState r : ranks) {
      view.reset(r.rank);
      long watermark = 0;
      long engineSeq = KvEventMessage.NO_SEQ;
      boolean seeded = false;
      Optional<byte[]> bytes = client.getSnapshot(options.snapshotKey(r.rank));
      if (bytes.isPresent()) {
        try {
          ViewSnapshot s = ViewSnapshot.decode(bytes.get());
          if (s.blockSize() != options.blockSize()) {
            log.warn(
                "relay snapshot has another block size, rebuilding from the stream rank={}"
                    + " block_size={} expected={}",
                r.rank,
                s.blockSize(),
                options.blockSize());
          } else {
            view.seed(r.rank, s);
            watermark = s.streamSeq();
            engineSeq = s.engineSeq();
            seeded = true;
          }
        } catch (EventDecodeException e) {
          log.warn(
              "relay snapshot unreadable, rebuilding from the stream rank={} error={}",
              r.rank,
              e.getMessage());
        }
      }
      Optional<Stored> last = client.lastMessage(r.subject);
      long lastSeq = last.map(Stored::streamSeq).orElse(0L);
      long[] tail = {0, engineSeq};
      if (lastSeq > watermark) {
        client.read(
            r.subject,
            watermark + 1,
            lastSeq,
            m -> {
              if (isMarker(m)) {
                return;
              }
              long seq = engineSeq(m);
              view.apply(r.rank, seq, m.payload());
              tail[0]++;
              if (seq != KvEventMessage.NO_SEQ) {
                tail[1] = seq;
              }
            });
      } else if (seeded && last.isPresent() && lastSeq < watermark) {
        log.warn(
            "relay snapshot is ahead of the stream (stream recreated?) rank={} snapshot_seq={}"
                + " stream_last_seq={}",
            r.rank,
            watermark,
            lastSeq);
      }
      r.lastStreamSeq = Math.max(watermark, lastSeq);
      r.changed = !seeded || tail[0] > 0;
      if (last.isPresent() && !isMarker(last.get()) && engineSeq(last.get()) >= 0) {
        Stored m = last.get();
        resume.put(
            r.rank,
            new IngestFilter.Resume(engineSeq(m), RelayProtocol.payloadHash(m.payload()), true));
      } else if (tail[1] != KvEventMessage.NO_SEQ) {
        resume.put(r.rank, new IngestFilter.Resume(tail[1], 0, false));
      }
      log.info(
          "relay view recovered rank={} subject={} snapshot_stream_seq={} tail_batches={}"
              + " stream_last_seq={} engine_seq={} blocks={}",
          r.rank,
          r.subject,
          seeded ? watermark : -1,
          tail[0],
          lastSeq,
          tail[1] == KvEventMessage.NO_SEQ ? -1 : tail[1],
          view.blocks(r.rank));
    }
    return resume;
  }

  // ---------------------------------------------------------------- loop

  /** One turn: acknowledgements, recovery, overflow, resync, publishing, snapshots, then a wait. */
  void step(long maxWaitNanos) {
    long now = System.nanoTime();
    if (!recovering) {
      completeHead(now);
    }
    if (recovering) {
      resolveWindow(now);
    }
    if (shouldFold()) {
      foldAll();
    }
    if (anyResyncPending() && inflight.isEmpty() && client.connected() && due(now)) {
      resync(System.nanoTime());
    }
    fill(System.nanoTime());
    snapshotsDue(System.nanoTime());
    await(maxWaitNanos);
  }

  /** Nothing buffered, in flight or due: a clean place to stop. */
  boolean idle() {
    return taken == null && queue.isEmpty() && inflight.isEmpty() && !anyResyncPending();
  }

  /** Batches received and not yet published (any thread). */
  long buffered() {
    return queue.size() + (taken == null ? 0 : 1);
  }

  /** On shutdown: a snapshot of every rank whose view changed and is not waiting for a resync. */
  void finalSnapshots() {
    long now = System.nanoTime();
    for (RankState r : ranks) {
      if (!r.resyncPending && r.changed) {
        submitSnapshot(r, now);
      }
    }
  }

  /** Describes what is left, for the shutdown log. */
  String leftover() {
    int pending = 0;
    for (RankState r : ranks) {
      pending += r.resyncPending ? 1 : 0;
    }
    return "buffered=" + buffered() + " in_flight=" + inflight.size() + " resyncs_due=" + pending;
  }

  long lastStreamSeq(int rank) {
    return ranks[rank].lastStreamSeq;
  }

  boolean resyncPending(int rank) {
    return ranks[rank].resyncPending;
  }

  // ---------------------------------------------------------------- acknowledgements

  private void completeHead(long now) {
    while (!inflight.isEmpty()) {
      InFlight e = inflight.peekFirst();
      if (!e.future.isDone()) {
        boolean timedOut = now - e.sentNanos > publishTimeoutNanos;
        boolean reconnected = client.reconnects() != e.generation && client.connected();
        if (timedOut || reconnected) {
          enterRecovery(timedOut ? "acknowledgement timed out" : "reconnected");
        }
        return;
      }
      Ack ack = succeeded(e.future);
      if (ack == null) {
        failure(failureOf(e.future));
        enterRecovery("publish failed");
        return;
      }
      inflight.pollFirst();
      counters.inFlight.decrementAndGet();
      acked(e.batch, ack, false);
    }
  }

  private void enterRecovery(String why) {
    recovering = true;
    log.info(
        "relay publish window unresolved, republishing in order in_flight={} why={}",
        inflight.size(),
        why);
  }

  /** Recovering: settle each window entry in order, publishing again what has no ack. */
  private void resolveWindow(long now) {
    while (!inflight.isEmpty()) {
      InFlight e = inflight.peekFirst();
      Ack ack = e.future.isDone() ? succeeded(e.future) : null;
      boolean retried = false;
      if (ack == null) {
        if (!client.connected() || !due(now)) {
          return;
        }
        RankState r = ranks[e.batch.rank()];
        try {
          ack = publishInOrder(r, message(e.batch));
        } catch (Exception ex) {
          failure(ex);
          return;
        }
        if (ack == null) {
          // A later batch of the subject is stored: this one cannot go before it any more.
          inflight.pollFirst();
          counters.inFlight.decrementAndGet();
          log.warn(
              "relay batch cannot be stored in engine order, folding it and resyncing rank={}"
                  + " engine_seq={} subject_last_seq={}",
              r.rank,
              e.batch.engineSeq(),
              lastActual);
          fold(e.batch, RelayProtocol.REASON_REORDER);
          continue;
        }
        counters.republished.incrementAndGet();
        retried = true;
      }
      inflight.pollFirst();
      counters.inFlight.decrementAndGet();
      acked(e.batch, ack, retried);
    }
    recovering = false;
    failuresInRow = 0;
    log.info("relay publish window resolved, publishing again");
  }

  /**
   * Publishes expecting the subject's last stored message to be the rank's last known one.
   *
   * @return the ack, or null when a later message of the subject is stored (its sequence in {@link
   *     #lastActual})
   */
  private Ack publishInOrder(RankState r, Outbound m) throws Exception {
    long expect = r.lastStreamSeq;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        return client.publish(m, expect);
      } catch (StreamClient.WrongLastSequenceException e) {
        long actual = client.lastMessage(r.subject).map(Stored::streamSeq).orElse(0L);
        lastActual = actual;
        if (actual > r.lastStreamSeq) {
          return null;
        }
        // The subject's older messages aged out or were deleted: expect what is there.
        expect = actual;
      }
    }
    throw new IllegalStateException("the last sequence of " + r.subject + " keeps changing");
  }

  private void acked(RelayBatch b, Ack ack, boolean retried) {
    RankState r = ranks[b.rank()];
    failuresInRow = 0;
    if (ack.duplicate() && !retried) {
      // Stored by an earlier run of this relay: the recovered view already includes it.
      counters.duplicateAcks.incrementAndGet();
      log.debug(
          "relay batch was already in the stream rank={} engine_seq={} stream_seq={}",
          b.rank(),
          b.engineSeq(),
          ack.streamSeq());
      return;
    }
    if (ack.streamSeq() <= r.lastStreamSeq) {
      counters.orderViolations.incrementAndGet();
      log.warn(
          "relay batch acknowledged out of order, resyncing rank={} engine_seq={} stream_seq={}"
              + " last_stream_seq={}",
          b.rank(),
          b.engineSeq(),
          ack.streamSeq(),
          r.lastStreamSeq);
      markResync(r, RelayProtocol.REASON_REORDER);
    }
    r.lastStreamSeq = Math.max(r.lastStreamSeq, ack.streamSeq());
    counters.acked.incrementAndGet();
    apply(r, b);
  }

  private void apply(RankState r, RelayBatch b) {
    r.eventsSinceSnapshot += view.apply(b.rank(), b.engineSeq(), b.payload());
    r.changed = true;
  }

  // ---------------------------------------------------------------- overflow and resync

  private boolean shouldFold() {
    long buffered = buffered() + inflight.size();
    if (buffered == 0) {
      return false;
    }
    return buffered >= options.bufferBatches() || (overflowing && !client.connected());
  }

  private void foldAll() {
    if (client.connected() && !recovering) {
      // NATS is up, just behind: let the window settle first, so that what it stores is applied
      // as stored rather than folded (and the resync needs no second snapshot).
      long deadline = System.nanoTime() + publishTimeoutNanos;
      while (!inflight.isEmpty() && !recovering && System.nanoTime() - deadline < 0) {
        completeHead(System.nanoTime());
        if (!inflight.isEmpty() && !recovering) {
          try {
            inflight.peekFirst().future.get(IDLE_PARK_NANOS, TimeUnit.NANOSECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          } catch (ExecutionException | TimeoutException | CancellationException e) {
            // Looked at by completeHead.
          }
        }
      }
    }
    if (!overflowing) {
      overflowing = true;
      counters.overflows.incrementAndGet();
      log.warn(
          "relay buffer overflow: folding batches into the view instead of the stream, a resync"
              + " follows once NATS takes them buffered={} in_flight={} bound={} nats_connected={}",
          buffered(),
          inflight.size(),
          options.bufferBatches(),
          client.connected());
    }
    // In flight first (engine order): acknowledged ones are stored, the rest are folded.
    while (!inflight.isEmpty()) {
      InFlight e = inflight.pollFirst();
      counters.inFlight.decrementAndGet();
      Ack ack = e.future.isDone() ? succeeded(e.future) : null;
      if (ack != null) {
        acked(e.batch, ack, false);
      } else {
        fold(e.batch, RelayProtocol.REASON_OVERFLOW);
      }
    }
    recovering = false;
    RelayBatch b = taken;
    taken = null;
    if (b != null) {
      fold(b, RelayProtocol.REASON_OVERFLOW);
    }
    while ((b = queue.poll()) != null) {
      fold(b, RelayProtocol.REASON_OVERFLOW);
    }
  }

  private void fold(RelayBatch b, String reason) {
    RankState r = ranks[b.rank()];
    apply(r, b);
    counters.folded.incrementAndGet();
    markResync(r, reason);
  }

  private void markResync(RankState r, String reason) {
    if (!r.resyncPending || RelayProtocol.REASON_OVERFLOW.equals(reason)) {
      r.resyncReason = reason;
    }
    r.resyncPending = true;
    // Whatever snapshot was taken for it no longer has everything.
    r.resyncSnapshotId = 0;
  }

  private boolean anyResyncPending() {
    for (RankState r : ranks) {
      if (r.resyncPending) {
        return true;
      }
    }
    return false;
  }

  private void resync(long now) {
    for (RankState r : ranks) {
      if (!r.resyncPending) {
        continue;
      }
      if (r.resyncSnapshotId == 0) {
        r.resyncWatermark = r.lastStreamSeq;
        r.resyncSnapshotId = snapshots.submit(r.rank, view.snapshot(r.rank, r.lastStreamSeq));
        r.changed = false;
        r.eventsSinceSnapshot = 0;
        r.lastSnapshotNanos = now;
        continue;
      }
      if (!snapshots.written(r.rank, r.resyncSnapshotId)) {
        continue;
      }
      Ack ack;
      try {
        ack = publishInOrder(r, marker(r));
      } catch (Exception e) {
        failure(e);
        return;
      }
      if (ack == null) {
        // A batch folded while its fate was unknown did land after the snapshot's watermark; it
        // is in the view already. Snapshot again with it included.
        log.info(
            "relay resync: a folded batch was stored meanwhile, snapshotting again rank={}"
                + " watermark={} subject_last_seq={}",
            r.rank,
            r.resyncWatermark,
            lastActual);
        r.lastStreamSeq = Math.max(r.lastStreamSeq, lastActual);
        r.resyncSnapshotId = 0;
        continue;
      }
      r.lastStreamSeq = Math.max(r.lastStreamSeq, ack.streamSeq());
      r.resyncPending = false;
      r.resyncSnapshotId = 0;
      r.resyncEpisode++;
      counters.resyncs.incrementAndGet();
      failuresInRow = 0;
      log.warn(
          "relay resync marker stored rank={} reason={} stream_seq={} snapshot_stream_seq={}"
              + " blocks={}",
          r.rank,
          r.resyncReason,
          ack.streamSeq(),
          r.resyncWatermark,
          view.blocks(r.rank));
    }
    if (!anyResyncPending()) {
      overflowing = false;
    }
  }

  // ---------------------------------------------------------------- publishing

  private void fill(long now) {
    if (recovering || anyResyncPending() || !client.connected() || !due(now)) {
      return;
    }
    long generation = client.reconnects();
    while (inflight.size() < options.publishWindow()) {
      RelayBatch b = taken;
      if (b != null) {
        taken = null;
      } else {
        b = queue.poll();
        if (b == null) {
          return;
        }
      }
      CompletableFuture<Ack> f = client.publishAsync(message(b));
      inflight.addLast(new InFlight(b, f, now, generation));
      counters.inFlight.incrementAndGet();
      counters.published.incrementAndGet();
    }
  }

  private Outbound message(RelayBatch b) {
    Map<String, String> h = new LinkedHashMap<>(4);
    if (b.hasSeq()) {
      h.put(NatsHeaders.ENGINE_SEQ, Long.toString(b.engineSeq()));
    }
    h.put(NatsHeaders.ENGINE, options.engine());
    h.put(NatsHeaders.BLOCK_SIZE, blockSizeHeader);
    String id =
        b.hasSeq()
            ? RelayProtocol.batchMessageId(
                options.workerId(), b.rank(), b.engineSeq(), b.payloadHash())
            : RelayProtocol.unsequencedMessageId(options.workerId(), b.rank(), runId, b.ordinal());
    return new Outbound(ranks[b.rank()].subject, h, b.payload(), id);
  }

  private Outbound marker(RankState r) {
    Map<String, String> h = new LinkedHashMap<>(4);
    h.put(NatsHeaders.RESYNC, r.resyncReason);
    h.put(NatsHeaders.ENGINE, options.engine());
    h.put(NatsHeaders.BLOCK_SIZE, blockSizeHeader);
    String id =
        RelayProtocol.resyncMessageId(
            options.workerId(), r.rank, runId, r.resyncEpisode, r.resyncWatermark);
    return new Outbound(r.subject, h, new byte[0], id);
  }

  // ---------------------------------------------------------------- snapshots

  private void snapshotsDue(long now) {
    for (RankState r : ranks) {
      if (r.resyncPending || !r.changed) {
        continue;
      }
      long since = now - r.lastSnapshotNanos;
      if (since < options.snapshotMinInterval().toNanos()) {
        continue;
      }
      if (r.eventsSinceSnapshot >= options.snapshotEveryEvents()
          || since >= options.snapshotEvery().toNanos()) {
        submitSnapshot(r, now);
      }
    }
  }

  private void submitSnapshot(RankState r, long now) {
    snapshots.submit(r.rank, view.snapshot(r.rank, r.lastStreamSeq));
    r.changed = false;
    r.eventsSinceSnapshot = 0;
    r.lastSnapshotNanos = now;
  }

  // ---------------------------------------------------------------- waiting and failures

  private void await(long maxWaitNanos) {
    if (maxWaitNanos <= 0) {
      return;
    }
    boolean canSend =
        !recovering && !anyResyncPending() && client.connected() && due(System.nanoTime());
    if (!inflight.isEmpty()) {
      if (recovering) {
        LockSupport.parkNanos(Math.min(maxWaitNanos, IDLE_PARK_NANOS));
        return;
      }
      if (canSend && inflight.size() < options.publishWindow() && buffered() > 0) {
        return;
      }
      try {
        inflight.peekFirst().future.get(maxWaitNanos, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException | CancellationException e) {
        // Looked at by the next turn.
      }
      return;
    }
    if (!canSend || anyResyncPending()) {
      LockSupport.parkNanos(Math.min(maxWaitNanos, IDLE_PARK_NANOS));
      return;
    }
    if (taken == null && queue.isEmpty()) {
      try {
        taken = queue.poll(maxWaitNanos, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private boolean due(long now) {
    return now - retryAtNanos >= 0;
  }

  private void failure(Throwable t) {
    Throwable cause = NatsStreamClient.cause(t);
    counters.publishFailures.incrementAndGet();
    failuresInRow++;
    long backoff = this.backoff.delayNanos(failuresInRow);
    retryAtNanos = System.nanoTime() + backoff;
    if (failuresInRow == 1) {
      log.warn(
          "relay publish failed, retrying nats_connected={} retry_ms={} error={}",
          client.connected(),
          TimeUnit.NANOSECONDS.toMillis(backoff),
          cause.toString());
    } else {
      log.debug("relay publish failed failures={} error={}", failuresInRow, cause.toString());
    }
    if (failuresInRow % 10 == 0 && client.connected()) {
      // Connected yet failing: the stream (or bucket) may have been deleted. Recreate it.
      try {
        client.setup();
      } catch (Exception e) {
        log.warn("relay jetstream setup failed error={}", e.toString());
      }
    }
  }

  private static Ack succeeded(CompletableFuture<Ack> f) {
    try {
      return f.getNow(null);
    } catch (CompletionException | CancellationException e) {
      return null;
    }
  }

  private static Throwable failureOf(CompletableFuture<Ack> f) {
    try {
      f.getNow(null);
      return new IllegalStateException("no failure");
    } catch (CompletionException e) {
      return e.getCause() == null ? e : e.getCause();
    } catch (CancellationException e) {
      return e;
    }
  }

  private static boolean isMarker(Stored m) {
    return RelayProtocol.isResync(m.headers().get(NatsHeaders.RESYNC));
  }

  /** The engine sequence header of a stored batch, or NO_SEQ (also when it is not a number). */
  static long engineSeq(Stored m) {
    try {
      return NatsHeaders.engineSeq(m.headers().get(NatsHeaders.ENGINE_SEQ));
    } catch (IllegalArgumentException e) {
      return KvEventMessage.NO_SEQ;
    }
  }
}
