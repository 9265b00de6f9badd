package io.infera.router.kv;

import static io.infera.router.kv.Events.batch;
import static io.infera.router.kv.Events.cleared;
import static io.infera.router.kv.Events.longs;
import static io.infera.router.kv.Events.range;
import static io.infera.router.kv.Events.removed;
import static io.infera.router.kv.Events.stored;
import static io.infera.router.kv.Events.storedLora;
import static io.infera.router.kv.Events.storedOn;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PrefixIndexTest {

  private static final int P = 4;
  private static final long NO_SEQ = KvEventMessage.NO_SEQ;
  private static final WorkerId A = WorkerId.of("a");
  private static final WorkerId B = WorkerId.of("b");
  private static final WorkerId C = WorkerId.of("c");

  private final PrefixIndex index = new PrefixIndex(P);
  private final BlockHasher hasher = new BlockHasher(P);

  private long[] request(int[] tokens) {
    return hasher.requestHashes(tokens, 0);
  }

  private void apply(WorkerId w, KvEvent... events) {
    index.apply(w, NO_SEQ, batch(events));
  }

  @Test
  void matchReportsTheLongestLeadingRunPerWorker() {
    apply(A, stored(P, longs(101, 102, 103), null, range(1, 12)));
    apply(B, stored(P, longs(201), null, range(1, 4)));
    MatchResult m = index.match(request(range(1, 20)));
    assertThat(m.requestBlocks()).isEqualTo(5);
    assertThat(m.hits(A)).isEqualTo(3);
    assertThat(m.hits(B)).isEqualTo(1);
    assertThat(m.hits(C)).isZero();
    assertThat(m.byWorker()).containsOnlyKeys(A, B);
  }

  @Test
  void aHoleInTheViewEndsTheRunEvenIfLaterBlocksAreHeld() {
    apply(A, stored(P, longs(101, 102, 103), null, range(1, 12)));
    apply(A, removed(102));
    assertThat(index.match(request(range(1, 12))).hits(A)).isEqualTo(1);
  }

  @Test
  void childEventsChainThroughTheParentsRouterHash() {
    apply(A, stored(P, longs(101), null, range(1, 4)));
    apply(A, stored(P, longs(102, 103), 101L, range(5, 8)));
    assertThat(index.match(request(range(1, 12))).hits(A)).isEqualTo(3);
  }

  @Test
  void dropsAreCountedPerSourceWorkerAndForgottenWithIt() {
    apply(A, stored(P, longs(102), 999L, range(5, 4)));
    apply(A, removed(555));
    apply(B, stored(P, longs(201), null, range(1, 4)));
    index.recordDecodeError(B);
    assertThat(index.dropped(A, DropReason.UNKNOWN_PARENT)).isEqualTo(1);
    assertThat(index.dropped(A, DropReason.UNKNOWN_BLOCK_REMOVED)).isEqualTo(1);
    assertThat(index.dropped(B, DropReason.UNKNOWN_PARENT)).isZero();
    assertThat(index.dropped(B, DropReason.DECODE_ERROR)).isEqualTo(1);
    assertThat(index.dropped(C, DropReason.DECODE_ERROR)).isZero();
    assertThat(index.stats().dropped(DropReason.DECODE_ERROR)).isEqualTo(1);
    index.purge(A);
    index.purge(B);
    assertThat(index.dropped(A, DropReason.UNKNOWN_PARENT)).isZero();
    assertThat(index.dropped(B, DropReason.DECODE_ERROR)).isZero();
    // The index-wide totals keep counting.
    assertThat(index.stats().dropped(DropReason.UNKNOWN_PARENT)).isEqualTo(1);
  }

  @Test
  void unknownParentDropsTheEventAndCountsIt() {
    apply(A, stored(P, longs(102), 999L, range(5, 4)));
    assertThat(index.stats().dropped(DropReason.UNKNOWN_PARENT)).isEqualTo(1);
    assertThat(index.blocks(new SourceId(A, 0))).isZero();
  }

  @Test
  void duplicateStoresAreReferenceCountedSoOneRemoveDoesNotEvict() {
    apply(A, stored(P, longs(101), null, range(1, 4)));
    apply(A, stored(P, longs(101), null, range(1, 4)));
    apply(A, removed(101));
    assertThat(index.match(request(range(1, 4))).hits(A)).isEqualTo(1);
    apply(A, removed(101));
    assertThat(index.match(request(range(1, 4))).hits(A)).isZero();
    apply(A, removed(101));
    assertThat(index.stats().dropped(DropReason.UNKNOWN_BLOCK_REMOVED)).isEqualTo(1);
  }

  @Test
  void twoEngineHashesForTheSameBlockKeepItUntilBothAreRemoved() {
    apply(A, stored(P, longs(101), null, range(1, 4)));
    apply(A, stored(P, longs(555), null, range(1, 4)));
    assertThat(index.blocks(new SourceId(A, 0))).isEqualTo(1);
    apply(A, removed(101));
    assertThat(index.match(request(range(1, 4))).hits(A)).isEqualTo(1);
    apply(A, removed(555));
    assertThat(index.match(request(range(1, 4))).hits(A)).isZero();
    assertThat(index.blocks(new SourceId(A, 0))).isZero();
  }

  @Test
  void allBlocksClearedEmptiesOnlyThatRank() {
    index.apply(A, NO_SEQ, batch(0, stored(P, longs(1), null, range(1, 4))));
    index.apply(A, NO_SEQ, batch(1, stored(P, longs(1), null, range(1, 4))));
    index.apply(A, NO_SEQ, batch(0, cleared()));
    MatchResult m = index.match(request(range(1, 4)));
    assertThat(m.hits(new SourceId(A, 0))).isZero();
    assertThat(m.hits(new SourceId(A, 1))).isEqualTo(1);
    assertThat(m.hits(A)).isEqualTo(1);
    assertThat(m.bestRank(A)).isEqualTo(1);
  }

  @Test
  void lowerTierStoresNeverCountAsDeviceHits() {
    apply(A, storedOn(P, longs(101), range(1, 4), "CPU", null, null));
    assertThat(index.match(request(range(1, 4))).hits(A)).isZero();
    apply(A, stored(P, longs(101), null, range(1, 4)));
    // Removing the CPU copy leaves the GPU copy.
    apply(A, new KvEvent.BlockRemoved(longs(101), "CPU", null));
    assertThat(index.match(request(range(1, 4))).hits(A)).isEqualTo(1);
    assertThat(index.stats().dropped(DropReason.LOWER_TIER)).isEqualTo(2);
  }

  @Test
  void nonFullAttentionGroupsAreKeptOutOfMatching() {
    apply(A, storedOn(P, longs(101), range(1, 4), null, 1, "sliding_window"));
    assertThat(index.match(request(range(1, 4))).hits(A)).isZero();
    apply(A, storedOn(P, longs(101), range(1, 4), "GPU", 0, "full_attention"));
    // The sliding-window group's removal must not remove the full-attention block.
    apply(A, new KvEvent.BlockRemoved(longs(101), null, 1));
    assertThat(index.match(request(range(1, 4))).hits(A)).isEqualTo(1);
    apply(A, new KvEvent.BlockRemoved(longs(101), null, 0));
    assertThat(index.match(request(range(1, 4))).hits(A)).isZero();
  }

  @Test
  void mismatchedEventsAreDroppedByReason() {
    // Block size 0 (an offload placeholder that claims the GPU tier) can never be used.
    apply(A, stored(0, longs(1), null, range(1, 8)));
    apply(A, stored(P, longs(1, 2), null, range(1, 5)));
    apply(
        A,
        new KvEvent.BlockStored(longs(1), null, range(1, 4), P, 3L, null, null, null, null, null));
    var stats = index.stats();
    assertThat(stats.dropped(DropReason.BLOCK_SIZE_MISMATCH)).isEqualTo(1);
    assertThat(stats.dropped(DropReason.TOKEN_COUNT_MISMATCH)).isEqualTo(1);
    assertThat(stats.dropped(DropReason.LORA_WITHOUT_NAME)).isEqualTo(1);
    assertThat(stats.entries()).isZero();
  }

  @Test
  void loraAndSaltedBlocksMatchOnlyRequestsWithTheSameIdentity() {
    apply(A, storedLora(P, longs(1), null, range(1, 4), "sql", null));
    apply(B, storedLora(P, longs(1), null, range(1, 4), null, "tenant"));
    MatchResult plain = index.match(request(range(1, 4)));
    assertThat(plain.hits(A)).isZero();
    assertThat(plain.hits(B)).isZero();
    long[] lora = hasher.requestHashes(range(1, 4), BlockHasher.firstParent("sql", null));
    assertThat(index.match(lora).hits(A)).isEqualTo(1);
    assertThat(index.match(lora).hits(B)).isZero();
    long[] salted = hasher.requestHashes(range(1, 4), BlockHasher.firstParent(null, "tenant"));
    assertThat(index.match(salted).hits(B)).isEqualTo(1);
  }

  @Test
  void sequenceGapMarksDegradedUntilResync() {
    EventBatch one = batch(stored(P, longs(1), null, range(1, 4)));
    assertThat(index.apply(A, 0, one)).isEqualTo(ApplyOutcome.APPLIED);
    assertThat(index.apply(A, 1, batch())).isEqualTo(ApplyOutcome.APPLIED);
    assertThat(index.apply(A, 1, batch())).isEqualTo(ApplyOutcome.DUPLICATE);
    assertThat(index.apply(A, 5, batch())).isEqualTo(ApplyOutcome.GAP);
    IndexStats stats = index.stats();
    assertThat(stats.degradedSources()).isEqualTo(1);
    assertThat(stats.sources().get(0).lastSeq()).isEqualTo(5);
    assertThat(stats.dropped(DropReason.DUPLICATE_BATCH)).isEqualTo(1);
    index.resync(new SourceId(A, 0));
    assertThat(index.stats().degradedSources()).isZero();
    assertThat(index.match(request(range(1, 4))).hits(A)).isZero();
    assertThat(index.apply(A, 0, one)).isEqualTo(ApplyOutcome.APPLIED);
  }

  @Test
  void sequenceGoingDownMeansRestartAndClearsTheSourceFirst() {
    index.apply(A, 10, batch(stored(P, longs(1), null, range(1, 4))));
    assertThat(index.apply(A, 0, batch(stored(P, longs(7), null, range(5, 4)))))
        .isEqualTo(ApplyOutcome.RESTARTED);
    assertThat(index.match(request(range(1, 4))).hits(A)).isZero();
    assertThat(index.match(request(range(5, 4))).hits(A)).isEqualTo(1);
    assertThat(index.stats().degradedSources()).isZero();
  }

  @Test
  void purgeForgetsEveryRankAndAReusedSlotInheritsNothing() {
    index.apply(A, NO_SEQ, batch(0, stored(P, longs(1), null, range(1, 4))));
    index.apply(A, NO_SEQ, batch(1, stored(P, longs(1), null, range(1, 4))));
    index.purge(A);
    assertThat(index.match(request(range(1, 4))).byWorker()).doesNotContainKey(A);
    assertThat(index.stats().sources()).isEmpty();
    apply(C, stored(P, longs(9), null, range(100, 4)));
    MatchResult m = index.match(request(range(1, 4)));
    assertThat(m.hits(C)).isZero();
    assertThat(m.byWorker()).containsOnlyKeys(C);
  }

  @Test
  void manyMoreSourcesThanOneBitsetWordHold() {
    int workers = 150;
    for (int w = 0; w < workers; w++) {
      int blocks = w % 10;
      long[] engine = IntStream.range(0, blocks).mapToLong(i -> 1000 + i).toArray();
      apply(WorkerId.of("w" + w), stored(P, engine, null, range(1, blocks * P)));
    }
    MatchResult m = index.match(request(range(1, 40)));
    for (int w = 0; w < workers; w++) {
      assertThat(m.hits(WorkerId.of("w" + w))).as("w" + w).isEqualTo(w % 10);
    }
    index.purge(WorkerId.of("w9"));
    assertThat(index.match(request(range(1, 40))).hits(WorkerId.of("w19"))).isEqualTo(9);
  }

  @Test
  void statsCountBlocksPerWorkerAndEntries() {
    index.apply(A, NO_SEQ, batch(0, stored(P, longs(1, 2), null, range(1, 8))));
    index.apply(A, NO_SEQ, batch(1, stored(P, longs(1), null, range(1, 4))));
    apply(B, stored(P, longs(1, 2, 3), null, range(1, 12)));
    IndexStats s = index.stats();
    assertThat(s.blocksPerWorker()).containsEntry(A, 3L).containsEntry(B, 3L);
    assertThat(s.entries()).isEqualTo(6);
    assertThat(s.sources())
        .extracting(IndexStats.SourceStats::source)
        .containsExactly(new SourceId(A, 0), new SourceId(A, 1), new SourceId(B, 0));
    assertThat(index.viewHashes(new SourceId(B, 0))).hasSize(3);
  }

  @Test
  void emptyRequestMatchesNothing() {
    apply(A, stored(P, longs(1), null, range(1, 4)));
    MatchResult m = index.match(new long[0]);
    assertThat(m.requestBlocks()).isZero();
    assertThat(m.hits(A)).isZero();
  }
}
