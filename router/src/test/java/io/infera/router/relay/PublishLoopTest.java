package io.infera.router.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.NatsHeaders;
import io.infera.router.nats.RelayProtocol;
import io.infera.router.relay.FakeStreamClient.Msg;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The publishing loop against an in-memory stream: order, deduplication after lost
 * acknowledgements, folding and resync on overflow and on a batch that can no longer be stored in
 * order, snapshots and their watermarks, recovery after a restart.
 */
@Timeout(30)
class PublishLoopTest {

  private static final WorkerId W = WorkerId.of("vllm-0/a b");
  private static final int BS = 4;
  private static final SourceId SRC = new SourceId(W, 0);

  private final FakeStreamClient fake = new FakeStreamClient();
  // Replaced by a test whose engine's attention backend forced another block size.
  private EngineScript engine = new EngineScript(BS);
  private RelayCounters counters;
  private RelayBuffer queue;
  private WorkerView view;
  private SnapshotWriter snapshots;
  private PublishLoop loop;
  private IngestFilter filter;
  private Map<Integer, IngestFilter.Resume> resume;
  private RelayOptions options;

  @AfterEach
  void stop() {
    if (snapshots != null) {
      snapshots.close();
    }
  }

  // Added to the loop's clock: lets a test move past timeouts without sleeping.
  private final AtomicLong skew = new AtomicLong();

  private RelayOptions.Builder opts() {
    return RelayOptions.builder("tcp://127.0.0.1:1", "nats://127.0.0.1:1", W)
        .blockSize(BS)
        .snapshotEveryEvents(1_000_000)
        .snapshotEvery(Duration.ofHours(1))
        .snapshotMinInterval(Duration.ZERO)
        .publishTimeout(Duration.ofMillis(100))
        .reconnectWait(Duration.ofMillis(1))
        .reconnectWaitMax(Duration.ofMillis(2));
  }

  private void start(RelayOptions o) throws Exception {
    if (snapshots != null) {
      snapshots.close();
    }
    options = o;
    counters = new RelayCounters();
    queue = new RelayBuffer(Integer.MAX_VALUE, Long.MAX_VALUE);
    view = new WorkerView(W, BS, counters);
    snapshots = new SnapshotWriter(fake, o, counters);
    snapshots.start();
    loop =
        new PublishLoop(
            o, fake, view, snapshots, counters, queue, "run", () -> System.nanoTime() + skew.get());
    resume = loop.recover();
    filter = new IngestFilter(o.dpSize(), resume, counters);
  }

  /** The engine publishes batches {@code from..to-1} (live). */
  private void engine(long from, long to) {
    for (long i = from; i < to; i++) {
      queue.addAll(filter.accept(0, engine.frames(i, 0), false, System.nanoTime()));
    }
  }

  private void steps(int n) {
    for (int i = 0; i < n; i++) {
      loop.step(0);
    }
  }

  private void runUntilIdle() throws InterruptedException {
    for (int i = 0; i < 10_000 && !loop.idle(); i++) {
      loop.step(TimeUnit.MILLISECONDS.toNanos(1));
    }
    assertThat(loop.idle()).as("loop idle").isTrue();
    assertThat(snapshots.awaitIdle(TimeUnit.SECONDS.toNanos(5))).isTrue();
  }

  private String subject() {
    return options.subject(0);
  }

  private List<Long> engineSeqs() {
    return fake.messages(subject()).stream()
        .filter(m -> !m.marker())
        .map(m -> Long.parseLong(m.headers().get(NatsHeaders.ENGINE_SEQ)))
        .toList();
  }

  private ViewSnapshot bucketSnapshot() throws Exception {
    return ViewSnapshot.decode(fake.kv(options.snapshotKey(0)));
  }

  /** The relay's view, the truth and what a router rebuilds from the bucket and stream agree. */
  private void assertViewsAgree(long batches) throws Exception {
    PrefixIndex truth = engine.truth(W, batches);
    assertThat(view.hashes(0)).containsExactly(truth.viewHashes(SRC));
    assertThat(pairs(view.snapshot(0, 0))).isEqualTo(pairs(truth.snapshot(SRC, 0)));
    loop.finalSnapshots();
    assertThat(snapshots.awaitIdle(TimeUnit.SECONDS.toNanos(5))).isTrue();
    ViewSnapshot snap = bucketSnapshot();
    PrefixIndex router =
        EngineScript.replay(W, 0, snap, EngineScript.of(fake.messages(subject())), BS);
    assertThat(router.viewHashes(SRC)).containsExactly(truth.viewHashes(SRC));
    assertThat(pairs(router.snapshot(SRC, 0))).isEqualTo(pairs(truth.snapshot(SRC, 0)));
    // And from scratch, as a router without any snapshot would (not when the view holds batches
    // the stream does not: folded ones, or those of a stream since recreated).
    PrefixIndex scratch =
        EngineScript.replay(W, 0, null, EngineScript.of(fake.messages(subject())), BS);
    if (counters.folded.get() == 0 && counters.streamResets.get() == 0) {
      assertThat(scratch.viewHashes(SRC)).containsExactly(truth.viewHashes(SRC));
    }
  }

  private static String pairs(ViewSnapshot s) {
    return java.util.Arrays.toString(s.routerHashes())
        + java.util.Arrays.toString(s.engineHashes());
  }

  // ---------------------------------------------------------------- tests

  @Test
  void publishesVerbatimInOrderWithHeaders() throws Exception {
    start(opts().build());
    engine(0, 40);
    runUntilIdle();

    List<Msg> msgs = fake.messages(subject());
    assertThat(subject()).isEqualTo(EventSubjects.subject("infera.kv.events", "static", W, 0));
    assertThat(engineSeqs()).containsExactlyElementsOf(LongStream.range(0, 40).boxed().toList());
    for (int i = 0; i < msgs.size(); i++) {
      Msg m = msgs.get(i);
      assertThat(m.payload()).isEqualTo(engine.payload(i, 0));
      assertThat(m.headers())
          .containsEntry(NatsHeaders.ENGINE, "vllm")
          .containsEntry(NatsHeaders.BLOCK_SIZE, "4");
      assertThat(m.id()).startsWith(EventSubjects.token(W) + ".0." + i + ".");
    }
    assertThat(counters.acked.get()).isEqualTo(40);
    assertThat(loop.lastStreamSeq(0)).isEqualTo(msgs.get(39).seq());
    assertViewsAgree(40);
  }

  @Test
  void duplicateAndRestartFollowTheIndexRules() throws Exception {
    start(opts().build());
    engine(0, 5);
    queue.addAll(filter.accept(0, engine.frames(4, 0), false, 0)); // same seq again
    EngineScript restarted = new EngineScript(BS, 1_800_000_000.0);
    for (long i = 0; i < 3; i++) {
      queue.addAll(filter.accept(0, restarted.frames(i, 0), false, 0));
    }
    runUntilIdle();

    assertThat(engineSeqs()).containsExactly(0L, 1L, 2L, 3L, 4L, 0L, 1L, 2L);
    assertThat(counters.duplicatesSkipped.get()).isEqualTo(1);
    assertThat(counters.engineRestarts.get()).isEqualTo(1);
    // The view restarted with the engine: only the new run's blocks.
    assertThat(view.hashes(0)).containsExactly(restarted.truth(W, 3).viewHashes(SRC));
  }

  @Test
  void lostAcknowledgementsAreRepublishedWithoutDuplicates() throws Exception {
    start(opts().build());
    engine(0, 3);
    runUntilIdle();
    fake.hold(true);
    engine(3, 8);
    steps(3);
    assertThat(fake.heldCount()).isEqualTo(5);
    fake.storeHeldLosingAcks();
    fake.hold(false);
    skew.addAndGet(TimeUnit.MILLISECONDS.toNanos(150)); // past the publish timeout
    engine(8, 10);
    runUntilIdle();

    assertThat(engineSeqs()).containsExactlyElementsOf(LongStream.range(0, 10).boxed().toList());
    assertThat(counters.republished.get()).isEqualTo(5);
    assertThat(counters.acked.get()).isEqualTo(10);
    assertThat(counters.resyncs.get()).isZero();
    assertViewsAgree(10);
  }

  @Test
  void aBatchLostWhileALaterOneLandedIsFoldedAndResynced() throws Exception {
    start(opts().build());
    engine(0, 3);
    runUntilIdle();
    fake.hold(true);
    engine(3, 6);
    steps(3);
    // Batch 3 died with the old connection; 4 and 5 were queued and sent after the reconnect.
    fake.down();
    fake.storeHeldAt(1, 2);
    fake.hold(false);
    fake.up();
    engine(6, 9);
    runUntilIdle();

    List<Msg> msgs = fake.messages(subject());
    assertThat(engineSeqs()).containsExactly(0L, 1L, 2L, 4L, 5L, 6L, 7L, 8L);
    Msg marker = msgs.get(5);
    assertThat(marker.marker()).isTrue();
    assertThat(marker.headers())
        .containsEntry(NatsHeaders.RESYNC, RelayProtocol.REASON_REORDER)
        .doesNotContainKey(NatsHeaders.ENGINE_SEQ);
    assertThat(marker.payload()).isEmpty();
    assertThat(counters.folded.get()).isEqualTo(1);
    assertThat(counters.resyncs.get()).isEqualTo(1);
    assertThat(counters.orderViolations.get()).isZero();
    assertViewsAgree(9);
  }

  @Test
  void overflowFoldsTheBufferAndResyncsOnceNatsIsBack() throws Exception {
    start(opts().bufferBatches(10).build());
    engine(0, 4);
    runUntilIdle();
    long before = fake.messages().size();
    fake.down();
    engine(4, 30);
    steps(5);
    assertThat(fake.messages()).hasSize((int) before);
    assertThat(counters.overflows.get()).isEqualTo(1);
    assertThat(counters.folded.get()).isEqualTo(26);
    assertThat(loop.resyncPending(0)).isTrue();
    fake.up();
    runUntilIdle();
    engine(30, 35);
    runUntilIdle();

    List<Msg> msgs = fake.messages(subject());
    assertThat(engineSeqs()).containsExactly(0L, 1L, 2L, 3L, 30L, 31L, 32L, 33L, 34L);
    assertThat(msgs.get(4).marker()).isTrue();
    assertThat(msgs.get(4).headers())
        .containsEntry(NatsHeaders.RESYNC, RelayProtocol.REASON_OVERFLOW);
    assertThat(counters.resyncs.get()).isEqualTo(1);
    assertViewsAgree(35);
  }

  /** Batches {@code from..to-1} as the ingest filter passes them (not queued yet). */
  private List<RelayBatch> batches(long from, long to) {
    List<RelayBatch> out = new java.util.ArrayList<>();
    for (long i = from; i < to; i++) {
      out.addAll(filter.accept(0, engine.frames(i, 0), false, System.nanoTime()));
    }
    return out;
  }

  private static long bytes(List<RelayBatch> batches) {
    return batches.stream().mapToLong(b -> b.payload().length).sum();
  }

  @Test
  void theBufferIsBoundedInBytesFoldingAtTheBoundAndNotBelowIt() throws Exception {
    start(opts().bufferBatches(1000).bufferBytes(1).build());
    // Measure the payloads first: the bound is exactly the bytes of batches 4..13.
    List<RelayBatch> below = batches(4, 13);
    List<RelayBatch> last = batches(13, 14);
    long bound = bytes(below) + bytes(last);
    start(opts().bufferBatches(1000).bufferBytes(bound).build());
    engine(0, 4);
    runUntilIdle();
    long before = fake.messages().size();
    fake.down();
    queue.addAll(batches(4, 13));
    steps(5);
    // One batch short of the bound: held, nothing folded.
    assertThat(loop.bufferedBytes()).isEqualTo(bound - bytes(last));
    assertThat(counters.overflows.get()).isZero();
    assertThat(counters.folded.get()).isZero();
    queue.addAll(batches(13, 14));
    steps(5);
    // At the bound: folded into the view, counted, a resync due.
    assertThat(counters.overflows.get()).isEqualTo(1);
    assertThat(counters.folded.get()).isEqualTo(10);
    assertThat(loop.bufferedBytes()).isZero();
    assertThat(loop.resyncPending(0)).isTrue();
    assertThat(fake.messages()).hasSize((int) before);
    fake.up();
    runUntilIdle();
    engine(14, 18);
    runUntilIdle();
    assertThat(engineSeqs()).containsExactly(0L, 1L, 2L, 3L, 14L, 15L, 16L, 17L);
    assertThat(counters.resyncs.get()).isEqualTo(1);
    assertViewsAgree(18);
  }

  @Test
  void theIngestBufferRefusesPastItsByteBoundButAlwaysTakesOneBatch() {
    RelayBatch big = new RelayBatch(0, 1, new byte[100], 0, 0, 1);
    RelayBuffer b = new RelayBuffer(10, 150);
    assertThat(b.offer(big)).isTrue();
    // 200 > 150: refused, nothing counted.
    assertThat(b.offer(new RelayBatch(0, 2, new byte[100], 0, 0, 2))).isFalse();
    assertThat(b.bytes()).isEqualTo(100);
    // 150 == 150: at the bound, taken.
    assertThat(b.offer(new RelayBatch(0, 2, new byte[50], 0, 0, 2))).isTrue();
    assertThat(b.bytes()).isEqualTo(150);
    assertThat(b.poll()).isSameAs(big);
    assertThat(b.poll().engineSeq()).isEqualTo(2);
    assertThat(b.bytes()).isZero();
    // A batch larger than the bound still fits an empty buffer (it is one engine message).
    assertThat(b.offer(new RelayBatch(0, 3, new byte[1000], 0, 0, 3))).isTrue();
    assertThat(b.offer(new RelayBatch(0, 4, new byte[1], 0, 0, 4))).isFalse();
  }

  @Test
  void aRecreatedStreamResetsTheWatermarkOnceAndResyncsOnce() throws Exception {
    start(opts().build());
    engine(0, 30);
    runUntilIdle();
    assertThat(loop.lastStreamSeq(0)).isEqualTo(30);
    fake.recreateStream();
    // The new stream numbers from 1: far below the watermark, every batch would look reordered.
    for (long i = 30; i < 60; i += 5) {
      engine(i, i + 5);
      runUntilIdle();
    }
    assertThat(counters.streamResets.get()).isEqualTo(1);
    assertThat(counters.resyncs.get()).isEqualTo(1);
    assertThat(counters.orderViolations.get()).isZero();
    List<Msg> msgs = fake.messages(subject());
    assertThat(msgs.stream().filter(Msg::marker).toList())
        .singleElement()
        .satisfies(
            m ->
                assertThat(m.headers())
                    .containsEntry(NatsHeaders.RESYNC, RelayProtocol.REASON_STREAM_RESET));
    // The watermark follows the new stream: a router seeded from the marker's snapshot plus the
    // later messages sees the whole view, old stream included.
    assertThat(loop.lastStreamSeq(0)).isEqualTo(msgs.get(msgs.size() - 1).seq());
    assertViewsAgree(60);
  }

  @Test
  void theResyncSnapshotIsWrittenBeforeTheMarkerAndCoversEverythingBeforeIt() throws Exception {
    start(opts().bufferBatches(10).build());
    engine(0, 4);
    runUntilIdle();
    fake.down();
    engine(4, 20);
    steps(3);
    fake.up();
    // Run until the marker is stored, then look at the bucket as a router reading it then would.
    for (int i = 0; i < 1000 && fake.messages(subject()).stream().noneMatch(Msg::marker); i++) {
      loop.step(TimeUnit.MILLISECONDS.toNanos(1));
    }
    Msg marker = fake.messages(subject()).stream().filter(Msg::marker).findFirst().orElseThrow();
    ViewSnapshot snap = bucketSnapshot();
    long lastBatchBefore =
        fake.messages(subject()).stream()
            .filter(m -> !m.marker() && m.seq() < marker.seq())
            .mapToLong(Msg::seq)
            .max()
            .orElse(0);
    assertThat(snap.streamSeq()).isGreaterThanOrEqualTo(lastBatchBefore).isLessThan(marker.seq());
    assertThat(snap.engineSeq()).isEqualTo(19);
    PrefixIndex router =
        EngineScript.replay(W, 0, snap, EngineScript.of(fake.messages(subject())), BS);
    assertThat(router.viewHashes(SRC)).containsExactly(engine.truth(W, 20).viewHashes(SRC));
  }

  @Test
  void aFoldedInFlightBatchThatLandsLaterMovesTheResyncWatermark() throws Exception {
    start(opts().bufferBatches(10).build());
    engine(0, 2);
    runUntilIdle();
    fake.hold(true);
    engine(2, 5);
    steps(3);
    assertThat(fake.heldCount()).isEqualTo(3);
    // NATS goes away with 2..4 still queued in the client; the buffer overflows meanwhile.
    fake.down();
    engine(5, 20);
    steps(3);
    assertThat(counters.folded.get()).isEqualTo(18);
    // Back: the client sends what it had queued (2..4 land), then the relay resyncs.
    fake.hold(false);
    fake.up();
    runUntilIdle();

    List<Msg> msgs = fake.messages(subject());
    assertThat(engineSeqs()).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(msgs.get(5).marker()).isTrue();
    ViewSnapshot snap = bucketSnapshot();
    assertThat(snap.streamSeq()).isEqualTo(msgs.get(4).seq());
    assertViewsAgree(20);
  }

  @Test
  void snapshotsEveryNEventsCarryTheWatermarkOfTheLastIncludedMessage() throws Exception {
    start(opts().snapshotEveryEvents(10).build());
    for (long i = 0; i < 23; i++) {
      engine(i, i + 1);
      runUntilIdle();
    }

    ViewSnapshot snap = bucketSnapshot();
    Msg included =
        fake.messages(subject()).stream()
            .filter(m -> m.seq() == snap.streamSeq())
            .findFirst()
            .orElseThrow();
    assertThat(Long.parseLong(included.headers().get(NatsHeaders.ENGINE_SEQ)))
        .isEqualTo(snap.engineSeq());
    assertThat(counters.snapshotsWritten.get()).isGreaterThanOrEqualTo(2);
    assertViewsAgree(23);
  }

  @Test
  void restartRecoversTheViewAndResumesAfterTheStreamsLastBatch() throws Exception {
    start(opts().snapshotEveryEvents(10).build());
    engine(0, 25);
    runUntilIdle();
    long[] before = view.hashes(0);

    // A new relay on the same stream: the engine replays its buffer from 0.
    start(opts().snapshotEveryEvents(10).build());
    assertThat(view.hashes(0)).containsExactly(before);
    assertThat(resume.get(0))
        .isEqualTo(
            new IngestFilter.Resume(24, RelayProtocol.payloadHash(engine.payload(24, 0)), true));
    for (long i = 0; i < 25; i++) {
      queue.addAll(filter.accept(0, engine.frames(i, 0), true, 0));
    }
    engine(25, 30);
    runUntilIdle();

    assertThat(engineSeqs()).containsExactlyElementsOf(LongStream.range(0, 30).boxed().toList());
    assertThat(counters.resumeSkipped.get()).isEqualTo(25);
    assertViewsAgree(30);
  }

  @Test
  void aForcedBlockSizeIsLearnedBySnapshottedAtAndRecoveredAtThatSize() throws Exception {
    engine = new EngineScript(4 * BS); // the relay was told BS, the engine uses 4 × BS
    start(opts().snapshotEveryEvents(10).build());
    engine(0, 25);
    runUntilIdle();
    assertThat(counters.decodeErrors.get()).isZero();
    assertThat(view.blocks(0)).isPositive();
    loop.finalSnapshots();
    assertThat(snapshots.awaitIdle(TimeUnit.SECONDS.toNanos(5))).isTrue();
    assertThat(bucketSnapshot().blockSize()).isEqualTo(4 * BS);
    assertViewsAgree(25);
    long[] before = view.hashes(0);

    // A restarted relay seeds from that snapshot although it is not at --block-size.
    start(opts().snapshotEveryEvents(10).build());
    assertThat(view.hashes(0)).containsExactly(before);
    for (long i = 0; i < 25; i++) {
      queue.addAll(filter.accept(0, engine.frames(i, 0), true, 0));
    }
    engine(25, 30);
    runUntilIdle();
    assertThat(counters.resumeSkipped.get()).isEqualTo(25);
    assertViewsAgree(30);
  }
}
