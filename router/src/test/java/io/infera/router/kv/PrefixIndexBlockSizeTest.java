package io.infera.router.kv;

import static io.infera.router.kv.Events.batch;
import static io.infera.router.kv.Events.cleared;
import static io.infera.router.kv.Events.longs;
import static io.infera.router.kv.Events.range;
import static io.infera.router.kv.Events.removed;
import static io.infera.router.kv.Events.stored;
import static io.infera.router.kv.Events.storedOn;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Block sizes per source: learned, matched at their own size, changed, and bounded. */
class PrefixIndexBlockSizeTest {

  private static final int P = 4;
  private static final long NO_SEQ = KvEventMessage.NO_SEQ;
  private static final WorkerId A = WorkerId.of("a");
  private static final WorkerId B = WorkerId.of("b");
  private static final SourceId A0 = new SourceId(A, 0);

  private final PrefixIndex index = new PrefixIndex(P);
  private final RequestHasher hasher = new RequestHasher(P);

  private RequestHashes request(int[] tokens) {
    return hasher.hash(tokens, 0, index.otherBlockSizes());
  }

  private void apply(WorkerId w, KvEvent... events) {
    index.apply(w, NO_SEQ, batch(events));
  }

  private IndexStats.SourceStats source(WorkerId w) {
    return index.stats().sources().stream()
        .filter(s -> s.source().worker().equals(w))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aForcedBlockSizeIsLearnedFromTheFirstStoreAndMatchedInPageSizeBlocks() {
    // The engine was asked for page size 4 but its attention backend forced 16.
    apply(A, stored(16, longs(101, 102), null, range(1, 32)));
    assertThat(index.otherBlockSizes()).containsExactly(16);
    assertThat(source(A).blockSize()).isEqualTo(16);
    assertThat(index.stats().dropped(DropReason.BLOCK_SIZE_MISMATCH)).isZero();
    MatchResult m = index.match(request(range(1, 40)));
    assertThat(m.requestBlocks()).isEqualTo(10);
    assertThat(m.hits(A)).isEqualTo(8); // 2 blocks of 16 tokens = 8 blocks of 4
    // A request hashed at the page size only cannot match it (never a false hit).
    assertThat(index.match(new BlockHasher(P).requestHashes(range(1, 40), 0)).hits(A)).isZero();
    // A partial block of the worker's size is not held: 31 tokens = 1 block of 16.
    assertThat(index.match(request(range(1, 31))).hits(A)).isEqualTo(4);
  }

  @Test
  void aMixedFleetMatchesEachWorkerAtItsOwnSizeAndHashesEachSizeOnce() {
    apply(A, stored(P, longs(101, 102, 103), null, range(1, 12)));
    apply(B, stored(8, longs(201), null, range(1, 8)));
    assertThat(index.otherBlockSizes()).containsExactly(8);
    RequestHashes r = request(range(1, 16));
    assertThat(r.sizes()).containsExactly(8);
    assertThat(r.chain(8)).hasSize(2);
    MatchResult m = index.match(r);
    assertThat(m.hits(A)).isEqualTo(3);
    assertThat(m.hits(B)).isEqualTo(2);
    // Different tokens: nobody holds them.
    assertThat(index.match(request(range(100, 16))).byWorker())
        .containsEntry(A, 0)
        .containsEntry(B, 0);
  }

  @Test
  void aRequestNotHashedAtAWorkersSizeGetsNoHitsThere() {
    apply(B, stored(8, longs(201), null, range(1, 8)));
    assertThat(
            index.match(RequestHashes.of(new BlockHasher(P).requestHashes(range(1, 8), 0))).hits(B))
        .isZero();
  }

  @Test
  void eventsBeforeTheSizeIsKnownAreHandledAsAlwaysAndTheSizeIsNotGuessed() {
    apply(A, removed(5), cleared());
    apply(A, storedOn(16, longs(1), range(1, 16), "CPU", 0, "full_attention"));
    apply(A, storedOn(16, longs(2), range(1, 16), "GPU", 1, "sliding_window"));
    assertThat(source(A).blockSize()).isNull();
    assertThat(index.otherBlockSizes()).isEmpty();
    assertThat(index.stats().dropped(DropReason.UNKNOWN_BLOCK_REMOVED)).isEqualTo(1);
    // The first device-tier full-attention store decides.
    apply(A, stored(16, longs(3), null, range(1, 16)));
    assertThat(source(A).blockSize()).isEqualTo(16);
    assertThat(source(A).blockSizeChanges()).isZero();
  }

  @Test
  void anotherSizeLaterMeansTheEngineChangedBackendAndClearsTheView() {
    apply(A, stored(16, longs(101, 102), null, range(1, 32)));
    assertThat(index.match(request(range(1, 32))).hits(A)).isEqualTo(8);
    apply(A, stored(P, longs(301), null, range(1, 4)));
    assertThat(source(A).blockSize()).isEqualTo(P);
    assertThat(source(A).blockSizeChanges()).isEqualTo(1);
    assertThat(source(A).blocks()).isEqualTo(1);
    assertThat(index.otherBlockSizes()).isEmpty();
    assertThat(index.match(request(range(1, 32))).hits(A)).isEqualTo(1);
    // A removal of an old-size block finds nothing: the old view is gone.
    apply(A, removed(101));
    assertThat(index.stats().dropped(DropReason.UNKNOWN_BLOCK_REMOVED)).isEqualTo(1);
  }

  @Test
  void anEngineCyclingThroughSizesHoldsOnlyTheHashersInUse() {
    for (int size = 1; size <= 200; size++) {
      apply(A, stored(size, longs(size), null, range(1, size)));
      assertThat(source(A).blockSize()).isEqualTo(size);
      assertThat(index.hashersHeld()).isLessThanOrEqualTo(2);
    }
    assertThat(source(A).blockSizeChanges()).isEqualTo(199);
    assertThat(index.otherBlockSizes()).containsExactly(200);
    index.purge(A);
    assertThat(index.hashersHeld()).isEqualTo(1);
    assertThat(index.otherBlockSizes()).isEmpty();
  }

  @Test
  void aMalformedStoreWithAnotherSizeDoesNotClearTheView() {
    apply(A, stored(16, longs(101), null, range(1, 16)));
    apply(A, stored(8, longs(201, 202), null, range(1, 8))); // 2 blocks, 8 tokens
    apply(A, stored(8, new long[0], null, new int[0])); // no block at all
    assertThat(source(A).blockSize()).isEqualTo(16);
    assertThat(source(A).blocks()).isEqualTo(1);
    assertThat(index.stats().dropped(DropReason.TOKEN_COUNT_MISMATCH)).isEqualTo(1);
    assertThat(index.stats().dropped(DropReason.BLOCK_SIZE_MISMATCH)).isEqualTo(1);
  }

  @Test
  void anEngineRestartKeepsTheLearnedSize() {
    index.apply(A, 5, batch(stored(16, longs(101), null, range(1, 16))));
    index.apply(A, 0, batch()); // the sequence went down: restart, view cleared
    assertThat(source(A).blocks()).isZero();
    assertThat(source(A).blockSize()).isEqualTo(16);
    assertThat(index.otherBlockSizes()).containsExactly(16);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, PrefixIndex.MAX_BLOCK_SIZE + 1, Integer.MAX_VALUE})
  void unusableSizesAreDroppedWithoutAllocating(int size) {
    apply(A, stored(size, longs(1), null, range(1, 4)));
    assertThat(index.stats().dropped(DropReason.BLOCK_SIZE_MISMATCH)).isEqualTo(1);
    assertThat(index.otherBlockSizes()).isEmpty();
  }

  @Test
  void theLargestUsableSizeIsAccepted() {
    int max = PrefixIndex.MAX_BLOCK_SIZE;
    apply(A, stored(max, longs(1), null, range(1, max)));
    assertThat(source(A).blockSize()).isEqualTo(max);
    assertThat(index.match(request(range(1, max))).hits(A)).isEqualTo(max / P);
  }

  @Test
  void atMostMaxBlockSizesDistinctSizesAreInUseAtOnce() {
    // The page size plus three others: the limit.
    int[] others = {8, 16, 32};
    assertThat(others.length + 1).isEqualTo(PrefixIndex.MAX_BLOCK_SIZES);
    for (int i = 0; i < others.length; i++) {
      apply(WorkerId.of("w" + i), stored(others[i], longs(1), null, range(1, others[i])));
    }
    apply(A, stored(P, longs(1), null, range(1, P)));
    assertThat(index.otherBlockSizes()).containsExactly(8, 16, 32);
    assertThat(index.stats().dropped(DropReason.BLOCK_SIZE_MISMATCH)).isZero();
    // A fifth size is one too many; a size already in use is still fine.
    apply(B, stored(64, longs(1), null, range(1, 64)));
    assertThat(index.stats().dropped(DropReason.BLOCK_SIZE_MISMATCH)).isEqualTo(1);
    assertThat(source(B).blockSize()).isNull();
    apply(B, stored(16, longs(2), null, range(1, 16)));
    assertThat(source(B).blockSize()).isEqualTo(16);
    // A worker that leaves frees its size.
    index.purge(WorkerId.of("w2"));
    assertThat(index.otherBlockSizes()).containsExactly(8, 16);
    apply(B, stored(64, longs(3), null, range(1, 64)));
    assertThat(source(B).blockSize()).isEqualTo(64);
    assertThat(index.otherBlockSizes()).containsExactly(8, 16, 64);
    // A snapshot of a new size obeys the same limit.
    ViewSnapshot fifth = new ViewSnapshot(256, 1, 1, longs(1), longs(2));
    assertThat(index.acceptsSnapshot(new SourceId(WorkerId.of("w4"), 0), fifth)).isFalse();
    assertThat(index.acceptsSnapshot(A0, new ViewSnapshot(64, 1, 1, longs(1), longs(2)))).isTrue();
  }

  @Test
  void rankHitsAreComparedInPageSizeBlocks() {
    index.apply(A, NO_SEQ, batch(0, stored(P, longs(1, 2, 3), null, range(1, 12))));
    index.apply(A, NO_SEQ, batch(1, stored(8, longs(11), null, range(1, 8))));
    MatchResult m = index.match(request(range(1, 16)));
    assertThat(m.hits(A0)).isEqualTo(3);
    assertThat(m.hits(new SourceId(A, 1))).isEqualTo(2);
    assertThat(m.hits(A)).isEqualTo(3);
    assertThat(m.bestRank(A)).isZero();
  }
}
