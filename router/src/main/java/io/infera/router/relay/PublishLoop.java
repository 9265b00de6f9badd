package io.infera.router.relay;

import io.infera.router.events.Backoff;
import io.infera.router.nats.RelayProtocol;
import io.infera.router.relay.StreamClient.Ack;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publishing thread's work: takes batches in arrival order from the ingest queue, publishes
 * them with a bounded window of unacknowledged JetStream publishes, applies each acknowledged batch
 * to the relay's view (so the view is exactly the stream's content and each rank's watermark is the
 * stream sequence of the last message it includes), schedules snapshots, and handles the failure
 * paths (docs/contracts.md, "NATS event plane"; {@link RelayProtocol}):
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
 *       RelayOptions#bufferBatches()}, or their payload bytes {@link RelayOptions#bufferBytes()},
 *       they are all folded into the view instead of being stored, and while NATS stays away every
 *       new batch is folded too. The affected ranks resync.
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

  private final RelayOptions options;
  private final StreamClient client;
  private final WorkerView view;
  private final SnapshotWriter snapshots;
  private final RelayCounters counters;
  private final RelayBuffer queue;
  private final RelayMessages messages;
  private final LongSupplier nanoClock;
  private final long publishTimeoutNanos;
  private final Backoff backoff;
  private final ArrayDeque<InFlight> inflight = new ArrayDeque<>();
  private final RelayRank[] ranks;
  private final InOrderPublisher inOrder;
  private final Resyncs resyncs;
  private volatile RelayBatch taken;
  // Payload bytes of the window (written by the publishing thread, read for status).
  private volatile long inflightBytes;
  private boolean recovering;
  private boolean overflowing;
  private int failuresInRow;
  private long retryAtNanos;

  PublishLoop(
      RelayOptions options,
      StreamClient client,
      WorkerView view,
      SnapshotWriter snapshots,
      RelayCounters counters,
      RelayBuffer queue,
      String runId) {
    this(options, client, view, snapshots, counters, queue, runId, System::nanoTime);
  }

  /**
   * @param nanoClock {@link System#nanoTime()}, or a test clock (timeouts, back-off, snapshot
   *     intervals; waits on futures and the queue stay real)
   */
  PublishLoop(
      RelayOptions options,
      StreamClient client,
      WorkerView view,
      SnapshotWriter snapshots,
      RelayCounters counters,
      RelayBuffer queue,
      String runId,
      LongSupplier nanoClock) {
    this.options = options;
    this.client = client;
    this.view = view;
    this.snapshots = snapshots;
    this.counters = counters;
    this.queue = queue;
    this.messages = new RelayMessages(options, runId);
    this.nanoClock = nanoClock;
    this.retryAtNanos = nanoClock.getAsLong();
    this.publishTimeoutNanos = options.publishTimeout().toNanos();
    this.backoff = new Backoff(options.reconnectWait(), options.reconnectWaitMax());
    this.ranks = new RelayRank[options.dpSize()];
    long now = nanoClock.getAsLong();
    for (int r = 0; r < ranks.length; r++) {
      ranks[r] = new RelayRank(r, options.subject(r), now);
    }
    this.inOrder = new InOrderPublisher(client);
    this.resyncs = new Resyncs(ranks, view, snapshots, counters, messages, inOrder);
  }

  // ---------------------------------------------------------------- start

  /**
   * Rebuilds each rank's view ({@link ViewRecovery}) and returns where the stream ends per rank
   * (for {@link IngestFilter}). Idempotent: a failed attempt may simply be repeated.
   */
  Map<Integer, IngestFilter.Resume> recover() throws Exception {
    Map<Integer, IngestFilter.Resume> resume = new HashMap<>();
    ViewRecovery recovery = new ViewRecovery(options, client, view);
    for (RelayRank r : ranks) {
      ViewRecovery.Rank got = recovery.recover(r.rank, r.subject);
      r.lastStreamSeq = got.lastStreamSeq();
      r.changed = got.changed();
      if (got.resume() != null) {
        resume.put(r.rank, got.resume());
      }
    }
    return resume;
  }

  // ---------------------------------------------------------------- loop

  /** One turn: acknowledgements, recovery, overflow, resync, publishing, snapshots, then a wait. */
  void step(long maxWaitNanos) {
    long now = nanoClock.getAsLong();
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
      resync(nanoClock.getAsLong());
    }
    fill(nanoClock.getAsLong());
    snapshotsDue(nanoClock.getAsLong());
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

  /** Payload bytes received and not yet acknowledged: queued, taken and in flight (any thread). */
  long bufferedBytes() {
    RelayBatch t = taken;
    return queue.bytes() + (t == null ? 0 : t.payload().length) + inflightBytes;
  }

  /** On shutdown: a snapshot of every rank whose view changed and is not waiting for a resync. */
  void finalSnapshots() {
    long now = nanoClock.getAsLong();
    for (RelayRank r : ranks) {
      if (!r.resyncPending && r.changed) {
        submitSnapshot(r, now);
      }
    }
  }

  /** Describes what is left, for the shutdown log. */
  String leftover() {
    int pending = 0;
    for (RelayRank r : ranks) {
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
      if (!e.future().isDone()) {
        boolean timedOut = now - e.sentNanos() > publishTimeoutNanos;
        boolean reconnected = client.reconnects() != e.generation() && client.connected();
        if (timedOut || reconnected) {
          enterRecovery(timedOut ? "acknowledgement timed out" : "reconnected");
        }
        return;
      }
      Ack ack = e.ack();
      if (ack == null) {
        failure(e.failure());
        enterRecovery("publish failed");
        return;
      }
      removeHead();
      acked(e.batch(), ack, false);
    }
  }

  private InFlight removeHead() {
    InFlight e = inflight.pollFirst();
    counters.inFlight.decrementAndGet();
    inflightBytes -= e.batch().payload().length;
    return e;
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
      Ack ack = e.future().isDone() ? e.ack() : null;
      boolean retried = false;
      if (ack == null) {
        if (!client.connected() || !due(now)) {
          return;
        }
        RelayRank r = ranks[e.batch().rank()];
        try {
          ack = inOrder.publish(r, messages.batch(e.batch()));
        } catch (Exception ex) {
          failure(ex);
          return;
        }
        if (ack == null) {
          // A later batch of the subject is stored: this one cannot go before it any more.
          removeHead();
          log.warn(
              "relay batch cannot be stored in engine order, folding it and resyncing rank={}"
                  + " engine_seq={} subject_last_seq={}",
              r.rank,
              e.batch().engineSeq(),
              inOrder.lastActual());
          fold(e.batch(), RelayProtocol.REASON_REORDER);
          continue;
        }
        counters.republished.incrementAndGet();
        retried = true;
      }
      removeHead();
      acked(e.batch(), ack, retried);
    }
    recovering = false;
    failuresInRow = 0;
    log.info("relay publish window resolved, publishing again");
  }

  private void acked(RelayBatch b, Ack ack, boolean retried) {
    RelayRank r = ranks[b.rank()];
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
    if (ack.streamSeq() <= r.lastStreamSeq && streamWasReset(r)) {
      resetWatermarks(r, ack.streamSeq());
    } else if (ack.streamSeq() <= r.lastStreamSeq) {
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

  /**
   * An acknowledgement at or below the rank's watermark: a batch stored out of order (the subject's
   * last message is then at or above the watermark), or a stream that was deleted and recreated
   * (its sequences started over: the subject's last message, this one, is below the watermark).
   */
  private boolean streamWasReset(RelayRank r) {
    long subjectLast;
    try {
      subjectLast = client.lastMessage(r.subject).map(StreamClient.Stored::streamSeq).orElse(0L);
    } catch (Exception e) {
      log.debug("relay subject read failed rank={} error={}", r.rank, e.toString());
      return false;
    }
    return subjectLast < r.lastStreamSeq;
  }

  /**
   * The stream is new: no watermark of the old one means anything in it. Each rank starts over (at
   * this batch for {@code r}, at 0 for the others: what of theirs the new stream has is in the
   * window and is applied as acknowledged) and resyncs once, so that routers seed the whole view.
   */
  private void resetWatermarks(RelayRank r, long streamSeq) {
    counters.streamResets.incrementAndGet();
    log.warn(
        "relay stream was recreated (sequence went back), watermarks start over and every rank"
            + " resyncs once stream={} rank={} stream_seq={} watermark_was={}",
        options.stream(),
        r.rank,
        streamSeq,
        r.lastStreamSeq);
    for (RelayRank x : ranks) {
      x.lastStreamSeq = x == r ? streamSeq : 0;
      markResync(x, RelayProtocol.REASON_STREAM_RESET);
    }
  }

  private void apply(RelayRank r, RelayBatch b) {
    r.eventsSinceSnapshot += view.apply(b.rank(), b.engineSeq(), b.payload());
    r.changed = true;
  }

  // ---------------------------------------------------------------- overflow and resync

  private boolean shouldFold() {
    long buffered = buffered() + inflight.size();
    if (buffered == 0) {
      return false;
    }
    return buffered >= options.bufferBatches()
        || bufferedBytes() >= options.bufferBytes()
        || (overflowing && !client.connected());
  }

  private void foldAll() {
    if (client.connected() && !recovering) {
      // NATS is up, just behind: let the window settle first, so that what it stores is applied
      // as stored rather than folded (and the resync needs no second snapshot).
      long deadline = nanoClock.getAsLong() + publishTimeoutNanos;
      while (!inflight.isEmpty() && !recovering && nanoClock.getAsLong() - deadline < 0) {
        completeHead(nanoClock.getAsLong());
        if (!inflight.isEmpty() && !recovering && !inflight.peekFirst().await(IDLE_PARK_NANOS)) {
          break;
        }
      }
    }
    if (!overflowing) {
      overflowing = true;
      counters.overflows.incrementAndGet();
      log.warn(
          "relay buffer overflow: folding batches into the view instead of the stream, a resync"
              + " follows once NATS takes them buffered={} in_flight={} buffered_bytes={} bound={}"
              + " bound_bytes={} nats_connected={}",
          buffered(),
          inflight.size(),
          bufferedBytes(),
          options.bufferBatches(),
          options.bufferBytes(),
          client.connected());
    }
    // In flight first (engine order): acknowledged ones are stored, the rest are folded.
    while (!inflight.isEmpty()) {
      InFlight e = removeHead();
      Ack ack = e.future().isDone() ? e.ack() : null;
      if (ack != null) {
        acked(e.batch(), ack, false);
      } else {
        fold(e.batch(), RelayProtocol.REASON_OVERFLOW);
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
    RelayRank r = ranks[b.rank()];
    apply(r, b);
    counters.folded.incrementAndGet();
    markResync(r, reason);
  }

  private void markResync(RelayRank r, String reason) {
    r.markResync(reason, RelayProtocol.REASON_OVERFLOW);
  }

  private boolean anyResyncPending() {
    return resyncs.pending();
  }

  private void resync(long now) {
    resyncs.step(
        now,
        new Resyncs.Outcomes() {
          @Override
          public void failed(Exception e) {
            failure(e);
          }

          @Override
          public void stored() {
            failuresInRow = 0;
          }
        });
    if (!resyncs.pending()) {
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
      CompletableFuture<Ack> f = client.publishAsync(messages.batch(b));
      inflight.addLast(new InFlight(b, f, now, generation));
      inflightBytes += b.payload().length;
      counters.inFlight.incrementAndGet();
      counters.published.incrementAndGet();
    }
  }

  // ---------------------------------------------------------------- snapshots

  private void snapshotsDue(long now) {
    for (RelayRank r : ranks) {
      if (r.snapshotDue(now, options)) {
        submitSnapshot(r, now);
      }
    }
  }

  private void submitSnapshot(RelayRank r, long now) {
    snapshots.submit(r.rank, view.snapshot(r.rank, r.lastStreamSeq));
    r.snapshotTaken(now);
  }

  // ---------------------------------------------------------------- waiting and failures

  private void await(long maxWaitNanos) {
    if (maxWaitNanos <= 0) {
      return;
    }
    boolean canSend =
        !recovering && !anyResyncPending() && client.connected() && due(nanoClock.getAsLong());
    if (!inflight.isEmpty()) {
      if (recovering) {
        LockSupport.parkNanos(Math.min(maxWaitNanos, IDLE_PARK_NANOS));
        return;
      }
      if (canSend && inflight.size() < options.publishWindow() && buffered() > 0) {
        return;
      }
      inflight.peekFirst().await(maxWaitNanos);
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
    retryAtNanos = nanoClock.getAsLong() + backoff;
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
}
