package io.infera.router.kv;

import static io.infera.router.kv.Events.batch;
import static io.infera.router.kv.Events.cleared;
import static io.infera.router.kv.Events.longs;
import static io.infera.router.kv.Events.range;
import static io.infera.router.kv.Events.removed;
import static io.infera.router.kv.Events.stored;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The index's caps (blocks per view, blocks in total) and its reset rate limit, at and past them.
 */
class PrefixIndexLimitsTest {

  private static final int P = 4;
  private static final long NO_SEQ = KvEventMessage.NO_SEQ;
  private static final WorkerId A = WorkerId.of("a");
  private static final WorkerId B = WorkerId.of("b");
  private static final SourceId A0 = new SourceId(A, 0);
  private static final SourceId B0 = new SourceId(B, 0);

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private PrefixIndex index(long perSource, long total, double perMinute, int burst) {
    return new PrefixIndex(P, new IndexLimits(perSource, total, perMinute, burst), now::get);
  }

  /** One store of {@code n} chained blocks with engine hashes {@code from..from+n-1}. */
  private static KvEvent chain(long from, int n, int firstToken) {
    long[] engine = LongStream.range(from, from + n).toArray();
    return stored(P, engine, null, range(firstToken, n * P));
  }

  @Test
  void aViewTakesBlocksUpToItsCapAndRefusesTheRestCounted() {
    PrefixIndex index = index(4, 100, 6, 3);
    index.apply(A, NO_SEQ, batch(chain(1, 4, 1)));
    assertThat(index.viewHashes(A0)).hasSize(4);
    assertThat(index.dropped(A, DropReason.SOURCE_FULL)).isZero();

    index.apply(A, NO_SEQ, batch(chain(10, 3, 100)));
    assertThat(index.viewHashes(A0)).hasSize(4);
    assertThat(index.dropped(A, DropReason.SOURCE_FULL)).isEqualTo(3);
    assertThat(index.heldBlocks()).isEqualTo(4);
    assertThat(index.heldBlocksExact()).isEqualTo(4);
  }

  @Test
  void aStorePartlyPastTheCapKeepsItsFirstBlocks() {
    PrefixIndex index = index(4, 100, 6, 3);
    index.apply(A, NO_SEQ, batch(chain(1, 6, 1)));
    assertThat(index.viewHashes(A0)).hasSize(4);
    assertThat(index.dropped(A, DropReason.SOURCE_FULL)).isEqualTo(2);
    // The kept blocks are the chain's first four: a request's first four blocks hit.
    long[] req = new BlockHasher(P).requestHashes(range(1, 24), 0);
    assertThat(index.match(req).hits(A)).isEqualTo(4);
  }

  @Test
  void aFullViewStillTakesAnotherReferenceToABlockItHolds() {
    PrefixIndex index = index(2, 100, 6, 3);
    index.apply(A, NO_SEQ, batch(chain(1, 2, 1)));
    index.apply(A, NO_SEQ, batch(chain(1, 2, 1)));
    assertThat(index.dropped(A, DropReason.SOURCE_FULL)).isZero();
    // Two references each: one remove leaves the blocks, the second removes them.
    index.apply(A, NO_SEQ, batch(removed(1, 2)));
    assertThat(index.viewHashes(A0)).hasSize(2);
    index.apply(A, NO_SEQ, batch(removed(1, 2)));
    assertThat(index.viewHashes(A0)).isEmpty();
    assertThat(index.heldBlocks()).isZero();
  }

  @Test
  void removalsGiveTheRoomBack() {
    PrefixIndex index = index(3, 100, 6, 3);
    index.apply(A, NO_SEQ, batch(chain(1, 3, 1)));
    index.apply(A, NO_SEQ, batch(chain(10, 1, 50)));
    assertThat(index.dropped(A, DropReason.SOURCE_FULL)).isEqualTo(1);
    index.apply(A, NO_SEQ, batch(removed(3)));
    index.apply(A, NO_SEQ, batch(chain(10, 1, 50)));
    assertThat(index.viewHashes(A0)).hasSize(3);
    assertThat(index.dropped(A, DropReason.SOURCE_FULL)).isEqualTo(1);
  }

  @Test
  void allViewsTogetherStopAtTheTotalCap() {
    PrefixIndex index = index(10, 5, 6, 3);
    index.apply(A, NO_SEQ, batch(chain(1, 3, 1)));
    index.apply(B, NO_SEQ, batch(chain(1, 3, 1)));
    assertThat(index.viewHashes(A0)).hasSize(3);
    assertThat(index.viewHashes(B0)).hasSize(2);
    assertThat(index.dropped(B, DropReason.INDEX_FULL)).isEqualTo(1);
    assertThat(index.stats().dropped(DropReason.INDEX_FULL)).isEqualTo(1);
    assertThat(index.heldBlocks()).isEqualTo(5);
    // A purged worker gives its blocks back to the others.
    index.purge(A);
    assertThat(index.heldBlocks()).isEqualTo(2).isEqualTo(index.heldBlocksExact());
    index.apply(B, NO_SEQ, batch(chain(20, 3, 90)));
    assertThat(index.viewHashes(B0)).hasSize(5);
  }

  @Test
  void aSnapshotPastTheCapIsSeededUpToItAndTheRestCounted() {
    PrefixIndex index = index(3, 100, 6, 3);
    long[] routers = {11, 12, 13, 14, 15};
    long[] engines = {1, 2, 3, 4, 5};
    index.seed(A0, ViewSnapshot.of(P, 7, 1, routers, engines));
    assertThat(index.viewHashes(A0)).hasSize(3);
    assertThat(index.dropped(A, DropReason.SOURCE_FULL)).isEqualTo(2);
    assertThat(index.heldBlocks()).isEqualTo(3);
  }

  @Test
  void aClearedViewFreesItsBlocksInTheTotal() {
    PrefixIndex index = index(10, 4, 6, 3);
    index.apply(A, NO_SEQ, batch(chain(1, 4, 1)));
    index.apply(A, NO_SEQ, batch(cleared()));
    assertThat(index.heldBlocks()).isZero();
    index.apply(B, NO_SEQ, batch(chain(1, 4, 1)));
    assertThat(index.viewHashes(B0)).hasSize(4);
  }

  @Test
  void resetsWithinTheBurstWipeTheViewAndArePerSource() {
    PrefixIndex index = index(100, 1000, 6, 3);
    for (int i = 0; i < 3; i++) {
      index.apply(A, NO_SEQ, batch(chain(1, 2, 1), cleared()));
    }
    assertThat(index.resets(A)).isEqualTo(3);
    assertThat(index.dropped(A, DropReason.RESET_RATE_LIMITED)).isZero();
    // B has a bucket of its own.
    index.apply(B, NO_SEQ, batch(chain(1, 2, 1), cleared()));
    assertThat(index.resets(B)).isEqualTo(1);
  }

  @Test
  void aResetPastTheBurstIsRefusedTheViewKeptAndDegraded() {
    PrefixIndex index = index(100, 1000, 6, 3);
    for (int i = 0; i < 3; i++) {
      index.apply(A, NO_SEQ, batch(chain(1, 2, 1), cleared()));
    }
    index.apply(A, NO_SEQ, batch(chain(1, 2, 1), cleared()));
    assertThat(index.viewHashes(A0)).hasSize(2);
    assertThat(index.dropped(A, DropReason.RESET_RATE_LIMITED)).isEqualTo(1);
    assertThat(index.resets(A)).isEqualTo(3);
    assertThat(index.stats().sources().get(0).degraded()).isTrue();
  }

  @Test
  void theBucketRefillsAtTheRate() {
    PrefixIndex index = index(100, 1000, 6, 1);
    index.apply(A, NO_SEQ, batch(chain(1, 2, 1), cleared()));
    index.apply(A, NO_SEQ, batch(chain(1, 2, 1), cleared()));
    assertThat(index.dropped(A, DropReason.RESET_RATE_LIMITED)).isEqualTo(1);
    // 6 a minute: one token per 10 s. 9.9 s is not enough, 10.1 s is.
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(9_900));
    index.apply(A, NO_SEQ, batch(cleared()));
    assertThat(index.dropped(A, DropReason.RESET_RATE_LIMITED)).isEqualTo(2);
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(200));
    index.apply(A, NO_SEQ, batch(cleared()));
    assertThat(index.viewHashes(A0)).isEmpty();
    assertThat(index.resets(A)).isEqualTo(2);
  }

  @Test
  void clearingAnEmptyViewCostsNoToken() {
    PrefixIndex index = index(100, 1000, 6, 1);
    for (int i = 0; i < 50; i++) {
      index.apply(A, NO_SEQ, batch(cleared()));
    }
    index.apply(A, NO_SEQ, batch(chain(1, 2, 1), cleared()));
    assertThat(index.viewHashes(A0)).isEmpty();
    assertThat(index.dropped(A, DropReason.RESET_RATE_LIMITED)).isZero();
  }

  @Test
  void aSequenceGoingDownPastTheBurstDropsTheBatch() {
    PrefixIndex index = index(100, 1000, 6, 1);
    index.apply(A, 10, batch(chain(1, 2, 1)));
    assertThat(index.apply(A, 3, batch(chain(5, 1, 30)))).isEqualTo(ApplyOutcome.RESTARTED);
    index.apply(A, 4, batch(chain(6, 1, 40)));
    assertThat(index.apply(A, 1, batch(chain(9, 1, 50)))).isEqualTo(ApplyOutcome.RESET_REFUSED);
    // The restarted view (5, 6) is kept, the refused batch's block is not in it.
    assertThat(index.viewHashes(A0)).hasSize(2);
    assertThat(index.stats().sources().get(0).lastSeq()).isEqualTo(4);
    assertThat(index.dropped(A, DropReason.RESET_RATE_LIMITED)).isEqualTo(1);
    now.addAndGet(TimeUnit.SECONDS.toNanos(10));
    assertThat(index.apply(A, 2, batch(chain(9, 1, 50)))).isEqualTo(ApplyOutcome.RESTARTED);
    assertThat(index.viewHashes(A0)).hasSize(1);
  }

  @Test
  void aBlockSizeChangePastTheBurstIsRefused() {
    PrefixIndex index = index(100, 1000, 6, 1);
    index.apply(A, NO_SEQ, batch(chain(1, 2, 1)));
    index.apply(A, NO_SEQ, batch(stored(8, longs(50), null, range(1, 8))));
    assertThat(index.stats().sources().get(0).blockSize()).isEqualTo(8);
    index.apply(A, NO_SEQ, batch(stored(8, longs(51), 50L, range(9, 8))));
    index.apply(A, NO_SEQ, batch(stored(P, longs(60), null, range(1, 4))));
    assertThat(index.stats().sources().get(0).blockSize()).isEqualTo(8);
    assertThat(index.viewHashes(A0)).hasSize(2);
    assertThat(index.dropped(A, DropReason.RESET_RATE_LIMITED)).isEqualTo(1);
  }

  @Test
  void trustedLimitsNeverRefuseAReset() {
    PrefixIndex index = new PrefixIndex(P);
    for (int i = 0; i < 1000; i++) {
      index.apply(A, NO_SEQ, batch(chain(1, 1, 1), cleared()));
    }
    assertThat(index.resets(A)).isEqualTo(1000);
    assertThat(index.dropped(A, DropReason.RESET_RATE_LIMITED)).isZero();
  }

  @Test
  void rejectionsAreCountedPerWorkerWithoutAViewAndGoWithAPurge() {
    PrefixIndex index = index(100, 1000, 6, 3);
    index.reject(A, DropReason.RANK_OUT_OF_RANGE);
    index.reject(A, DropReason.RANK_OUT_OF_RANGE);
    index.recordDecodeError(A);
    assertThat(index.dropped(A, DropReason.RANK_OUT_OF_RANGE)).isEqualTo(2);
    assertThat(index.dropped(A, DropReason.DECODE_ERROR)).isEqualTo(1);
    assertThat(index.stats().sources()).isEmpty();
    assertThat(index.stats().dropped(DropReason.RANK_OUT_OF_RANGE)).isEqualTo(2);
    index.purge(A);
    assertThat(index.dropped(A, DropReason.RANK_OUT_OF_RANGE)).isZero();
  }

  @Test
  void limitsAreValidated() {
    assertThatThrownBy(() -> new IndexLimits(0, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new IndexLimits(1, 0, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new IndexLimits(1, 1, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new IndexLimits(1, 1, Double.NaN, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new IndexLimits(1, 1, 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
