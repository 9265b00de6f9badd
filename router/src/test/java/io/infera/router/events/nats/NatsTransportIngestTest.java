package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.events.Delivery;
import io.infera.router.events.EventIngest;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.kv.Events;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the nats transport hands the index's writer: seeds and stream messages with their rank. */
class NatsTransportIngestTest {

  private static final WorkerId A = WorkerId.of("a");
  private final PrefixIndex index = new PrefixIndex(16);
  private final EventIngest ingest = new EventIngest(index, 1000).start();

  @AfterEach
  void close() {
    ingest.close();
  }

  private void flush() throws Exception {
    ingest.flush().get(10, TimeUnit.SECONDS);
  }

  private long[] view(int rank) throws Exception {
    return ingest.flush().thenApply(v -> index.viewHashes(SourceId.of("a", rank))).get();
  }

  @Test
  void aSeedReplacesTheViewInOrderWithTheMessages() throws Exception {
    ingest.workers(Set.of(A), Set.of());
    KvEvent e = Events.stored(16, new long[] {7}, null, Events.range(0, 16));
    ingest.accept(
        new Delivery.Streamed(
            A, 0, 1, NatsFrames.frames(0, FakeVllmPublisher.batchPayload(1, 0, e))));
    PrefixIndex other = new PrefixIndex(16);
    other.apply(
        A, 5, Events.batch(0, Events.stored(16, new long[] {8, 9}, null, Events.range(100, 32))));
    ViewSnapshot snap = other.snapshot(SourceId.of("a", 0), 3);
    ingest.accept(new Delivery.Snapshot(A, 0, snap));
    // A later batch chains on the seeded engine hash 9.
    KvEvent next = Events.stored(16, new long[] {10}, 9L, Events.range(132, 16));
    ingest.accept(
        new Delivery.Streamed(
            A, 0, 4, NatsFrames.frames(6, FakeVllmPublisher.batchPayload(1, 0, next))));
    flush();
    PrefixIndex before = new PrefixIndex(16);
    before.apply(A, 0, Events.batch(0, e));
    long replaced = before.viewHashes(SourceId.of("a", 0))[0];
    assertThat(view(0))
        .hasSize(3)
        .contains(other.viewHashes(SourceId.of("a", 0)))
        .doesNotContain(replaced);
    assertThat(ingest.seededSnapshots()).isEqualTo(1);
    assertThat(index.stats().sources().get(0).lastSeq()).isEqualTo(6);
    assertThat(index.stats().degradedSources()).isZero();
  }

  @Test
  void seedsOfUnknownWorkersOrAnUnusableBlockSizeAreRejected() throws Exception {
    ingest.workers(Set.of(A), Set.of());
    ViewSnapshot snap = new ViewSnapshot(16, 1, 1, new long[] {1}, new long[] {2});
    ingest.accept(new Delivery.Snapshot(WorkerId.of("b"), 0, snap));
    int tooBig = PrefixIndex.MAX_BLOCK_SIZE + 1;
    ingest.accept(
        new Delivery.Snapshot(
            A, 0, new ViewSnapshot(tooBig, 1, 1, new long[] {1}, new long[] {2})));
    flush();
    assertThat(ingest.rejectedSnapshots()).isEqualTo(2);
    assertThat(ingest.seededSnapshots()).isZero();
    assertThat(index.stats().sources()).isEmpty();
  }

  @Test
  void aSeedAtAnotherBlockSizeSetsThatWorkersSize() throws Exception {
    ingest.workers(Set.of(A), Set.of());
    ingest.accept(
        new Delivery.Snapshot(A, 0, new ViewSnapshot(64, 1, 1, new long[] {1}, new long[] {2})));
    flush();
    assertThat(ingest.seededSnapshots()).isEqualTo(1);
    assertThat(index.stats().sources().get(0).blockSize()).isEqualTo(64);
    assertThat(index.otherBlockSizes()).containsExactly(64);
  }

  @Test
  void theStreamsRankNamesTheSourceWhateverTheBatchSays() throws Exception {
    ingest.workers(Set.of(A), Set.of());
    KvEvent e = Events.stored(16, new long[] {7}, null, Events.range(0, 16));
    ingest.accept(
        new Delivery.Streamed(
            A, 1, 1, NatsFrames.frames(0, FakeVllmPublisher.batchPayload(1, 0, e))));
    KvEvent f = Events.stored(16, new long[] {8}, null, Events.range(16, 16));
    ingest.accept(
        new Delivery.Streamed(
            A, 2, 2, NatsFrames.frames(0, FakeVllmPublisher.batchPayload(1, null, f))));
    flush();
    assertThat(view(0)).isEmpty();
    assertThat(view(1)).hasSize(1);
    assertThat(view(2)).hasSize(1);
  }
}
