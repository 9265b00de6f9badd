package io.infera.sim.kvcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.BlockHasher;
import io.infera.sim.kvcache.RecordingListener.Cleared;
import io.infera.sim.kvcache.RecordingListener.Removed;
import io.infera.sim.kvcache.RecordingListener.Stored;
import java.util.Arrays;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BlockManagerTest {

  private static final int BS = 4;

  private final RecordingListener events = new RecordingListener(BS);

  private BlockManager manager(int numBlocks) {
    return new BlockManager(numBlocks, BS, 0, events);
  }

  /** {@code n} tokens {@code from, from + 1, …}. */
  private static int[] tokens(int from, int n) {
    return IntStream.range(from, from + n).toArray();
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static long[] unsignedSorted(long[] hashes) {
    return LongStream.of(hashes)
        .map(h -> h ^ Long.MIN_VALUE)
        .sorted()
        .map(h -> h ^ Long.MIN_VALUE)
        .toArray();
  }

  @Test
  void computedFullBlocksBecomePrefixHits() {
    BlockManager m = manager(16);
    int[] prompt = tokens(1, 10);
    Sequence a = m.admit(1, prompt, null);
    assertThat(a.cachedTokens()).isZero();
    assertThat(a.blockCount()).isEqualTo(3);
    assertThat(m.cachedPrefixBlocks(prompt, null)).isZero();

    m.computed(a, 10);

    Stored stored = events.ofType(Stored.class).get(0);
    assertThat(events.events).hasSize(1);
    assertThat(stored.hashes()).hasSize(2);
    assertThat(stored.parent()).isNull();
    assertThat(stored.tokens()).containsExactly(tokens(1, 8));
    assertThat(m.cachedPrefixBlocks(prompt, null)).isEqualTo(2);
    assertThat(m.cachedPrefixBlocks(tokens(1, 6), null)).isEqualTo(1);
    assertThat(m.cachedPrefixBlocks(tokens(2, 10), null)).isZero();
    assertThat(m.cachedPrefixBlocks(prompt, "other-lora")).isZero();

    Sequence b = m.admit(2, prompt, null);
    assertThat(b.cachedTokens()).isEqualTo(8);
    assertThat(b.computedTokens()).isEqualTo(8);
    assertThat(m.prefixQueryTokens()).isEqualTo(20);
    assertThat(m.prefixHitTokens()).isEqualTo(8);
    m.checkInvariants();
  }

  @ParameterizedTest(name = "prompt {0}, cached blocks {1} → cached tokens {2}")
  @CsvSource({"8, 2, 4", "9, 2, 8", "12, 3, 8", "13, 3, 12", "4, 1, 0", "5, 1, 4", "1, 0, 0"})
  void theLastPromptTokenIsNeverAHit(int promptLen, int cachedBlocks, int expectedCached) {
    BlockManager m = manager(16);
    int[] prompt = tokens(100, promptLen);
    Sequence warm = m.admit(1, prompt, null);
    m.computed(warm, promptLen);
    m.release(warm);
    assertThat(m.cachedPrefixBlocks(prompt, null)).isEqualTo(cachedBlocks);

    Sequence s = m.admit(2, prompt, null);

    assertThat(s.cachedTokens()).isEqualTo(expectedCached);
    m.computed(s, promptLen);
    assertThat(events.ofType(Stored.class)).hasSize(cachedBlocks == 0 ? 0 : 1);
    m.checkInvariants();
  }

  @Test
  void releasedBlocksAreEvictedLeastRecentlyUsedLeavesFirst() {
    BlockManager m = manager(6);
    Sequence a = m.admit(1, tokens(1, 12), null);
    m.computed(a, 12);
    long[] aHashes = events.ofType(Stored.class).get(0).hashes();
    m.release(a);
    assertThat(m.freeBlocks()).isEqualTo(6);
    assertThat(m.cachedBlocks()).isEqualTo(3);

    // Three never-used blocks go first, then a's leaf, …
    Sequence b = m.admit(2, tokens(1000, 16), null);
    assertThat(events.ofType(Removed.class)).hasSize(1);
    assertThat(events.ofType(Removed.class).get(0).hashes()).containsExactly(aHashes[2]);
    // … then its middle block and its root, in one event.
    Sequence c = m.admit(3, tokens(2000, 8), null);
    assertThat(events.ofType(Removed.class)).hasSize(2);
    assertThat(events.ofType(Removed.class).get(1).hashes())
        .containsExactly(aHashes[1], aHashes[0]);
    assertThat(m.cachedBlocks()).isZero();
    assertThat(m.freeBlocks()).isZero();
    assertThat(b.cachedTokens() + c.cachedTokens()).isZero();
    m.checkInvariants();
  }

  @Test
  void aPrefixHitRefreshesRecency() {
    BlockManager m = manager(4);
    Sequence a = m.admit(1, tokens(1, 8), null);
    m.computed(a, 8);
    m.release(a);
    Sequence b = m.admit(2, tokens(50, 8), null);
    m.computed(b, 8);
    m.release(b);
    long[] aHashes = events.ofType(Stored.class).get(0).hashes();
    long[] bHashes = events.ofType(Stored.class).get(1).hashes();
    // Queue (LRU first): a1 a0 b1 b0. Hitting a's root takes it out; the hit's fresh second
    // block evicts the least recently used one, a1.
    events.clear();
    Sequence hit = m.admit(3, tokens(1, 5), null);
    assertThat(hit.cachedTokens()).isEqualTo(4);
    assertThat(events.ofType(Removed.class).get(0).hashes()).containsExactly(aHashes[1]);
    m.release(hit);
    // Queue: b1 b0 (hit's empty block) a0 — a0 is now the most recently used.
    events.clear();
    Sequence big = m.admit(4, tokens(900, 12), null);
    assertThat(big).isNotNull();
    assertThat(events.ofType(Removed.class)).hasSize(1);
    assertThat(events.ofType(Removed.class).get(0).hashes())
        .containsExactly(bHashes[1], bHashes[0]);
    assertThat(m.cachedPrefixBlocks(tokens(1, 8), null)).isEqualTo(1);
    m.checkInvariants();
  }

  @Test
  void sharedPrefixBlocksStayReferencedUntilTheLastSequenceReleases() {
    BlockManager m = manager(8);
    int[] system = tokens(1, 8);
    Sequence a = m.admit(1, concat(system, tokens(100, 3)), null);
    m.computed(a, 11);
    Sequence b = m.admit(2, concat(system, tokens(200, 3)), null);
    assertThat(b.cachedTokens()).isEqualTo(8);
    // a: 3 blocks, b: 1 new block; the two system blocks are shared.
    assertThat(m.freeBlocks()).isEqualTo(8 - 4);
    assertThat(m.usage()).isEqualTo(0.5);

    m.release(a);
    assertThat(m.freeBlocks()).isEqualTo(8 - 3);
    // Everything free is taken, yet the shared blocks b references survive.
    Sequence c = m.admit(3, tokens(500, 20), null);
    assertThat(c).isNotNull();
    assertThat(m.freeBlocks()).isZero();
    assertThat(m.usage()).isEqualTo(1.0);
    assertThat(m.cachedPrefixBlocks(system, null)).isEqualTo(2);
    assertThat(m.admit(4, tokens(700, 4), null)).isNull();
    m.checkInvariants();

    m.release(b);
    m.release(c);
    assertThat(m.freeBlocks()).isEqualTo(8);
    assertThat(m.usage()).isZero();
    assertThat(m.cachedPrefixBlocks(system, null)).isEqualTo(2);
    m.checkInvariants();
  }

  @Test
  void aFailedAdmissionChangesNothing() {
    BlockManager m = manager(6);
    Sequence a = m.admit(1, tokens(1, 12), null);
    m.computed(a, 12);
    m.release(a);
    Sequence hold = m.admit(2, tokens(500, 8), null);
    events.clear();
    int free = m.freeBlocks();
    long[] routerHashes = m.cachedRouterHashes();
    long[] engineHashes = m.cachedEngineHashes();
    long queries = m.prefixQueryTokens();

    // Hits a's three blocks, which are evictable: they cannot also serve as fresh blocks.
    assertThat(m.admit(3, tokens(1, 8 + 4 * 3), null)).isNull();
    assertThat(m.admit(4, tokens(9000, 17), null)).isNull();

    assertThat(events.events).isEmpty();
    assertThat(m.freeBlocks()).isEqualTo(free);
    assertThat(m.cachedRouterHashes()).isEqualTo(routerHashes);
    assertThat(m.cachedEngineHashes()).isEqualTo(engineHashes);
    assertThat(m.prefixQueryTokens()).isEqualTo(queries);
    m.checkInvariants();
    // The same prompt fits once `hold` is gone.
    m.release(hold);
    assertThat(m.admit(3, tokens(1, 8 + 4 * 3), null).cachedTokens()).isEqualTo(12);
    m.checkInvariants();
  }

  @Test
  void generatedTokensFillBlocksThatBecomeCached() {
    BlockManager m = manager(16);
    int[] prompt = tokens(1, 6);
    Sequence s = m.admit(1, prompt, null);
    m.computed(s, 6);
    assertThat(m.append(s, 7001)).isTrue();
    assertThat(m.append(s, 7002)).isTrue();
    assertThat(s.blockCount()).isEqualTo(2);
    assertThat(m.append(s, 7003)).isTrue();
    assertThat(s.blockCount()).isEqualTo(3);
    assertThat(s.length()).isEqualTo(9);
    assertThat(s.tokens()).containsExactly(1, 2, 3, 4, 5, 6, 7001, 7002, 7003);

    m.computed(s, 8);

    Stored first = events.ofType(Stored.class).get(0);
    Stored second = events.ofType(Stored.class).get(1);
    assertThat(second.parent()).isEqualTo(first.hashes()[0]);
    assertThat(second.tokens()).containsExactly(5, 6, 7001, 7002);
    m.release(s);
    int[] followUp = concat(new int[] {1, 2, 3, 4, 5, 6, 7001, 7002}, tokens(42, 5));
    assertThat(m.cachedPrefixBlocks(followUp, null)).isEqualTo(2);
    assertThat(m.admit(2, followUp, null).cachedTokens()).isEqualTo(8);
  }

  @Test
  void appendFailsWithoutAFreeBlockAndChangesNothing() {
    BlockManager m = manager(2);
    Sequence s = m.admit(1, tokens(1, 8), null);
    m.computed(s, 8);
    events.clear();

    assertThat(m.append(s, 5)).isFalse();

    assertThat(s.length()).isEqualTo(8);
    assertThat(s.blockCount()).isEqualTo(2);
    assertThat(events.events).isEmpty();
    m.checkInvariants();
  }

  @Test
  void appendEvictsOneCachedBlock() {
    BlockManager m = manager(3);
    Sequence old = m.admit(1, tokens(1, 4), null);
    m.computed(old, 4);
    m.release(old);
    Sequence s = m.admit(2, tokens(100, 8), null);
    long oldHash = events.ofType(Stored.class).get(0).hashes()[0];
    events.clear();

    assertThat(m.append(s, 9)).isTrue();

    assertThat(events.events).hasSize(1);
    assertThat(((Removed) events.events.get(0)).hashes()).containsExactly(oldHash);
    m.checkInvariants();
  }

  @Test
  void identicalPromptsComputedConcurrentlyAreStoredOnce() {
    BlockManager m = manager(8);
    int[] prompt = tokens(1, 10);
    Sequence a = m.admit(1, prompt, null);
    Sequence b = m.admit(2, prompt, null);
    assertThat(m.freeBlocks()).isEqualTo(2);

    m.computed(a, 10);
    m.computed(b, 10);

    assertThat(events.ofType(Stored.class)).hasSize(1);
    // b now shares a's two cached blocks; its own copies went back to the free queue.
    assertThat(m.freeBlocks()).isEqualTo(4);
    m.checkInvariants();
    m.release(a);
    m.release(b);
    m.checkInvariants();
  }

  @Test
  void seedsChangeEngineHashesButNotRouterHashes() {
    int[] prompt = tokens(7, 16);
    long[][] engine = new long[3][];
    long[][] router = new long[3][];
    long[] seeds = {1, 2, 1};
    for (int i = 0; i < 3; i++) {
      RecordingListener l = new RecordingListener(BS);
      BlockManager m = new BlockManager(8, BS, seeds[i], l);
      m.computed(m.admit(1, prompt, null), 16);
      engine[i] = l.ofType(Stored.class).get(0).hashes();
      router[i] = m.cachedRouterHashes();
    }

    assertThat(engine[0]).hasSize(4).isEqualTo(engine[2]);
    for (int b = 0; b < 4; b++) {
      assertThat(engine[0][b]).isNotEqualTo(engine[1][b]);
    }
    assertThat(router[0]).isEqualTo(router[1]).isEqualTo(router[2]);
    assertThat(engine[0]).doesNotContain(new BlockHasher(BS).requestHashes(prompt, 0));
  }

  @Test
  void cachedRouterHashesAreTheRouterChainsOfTheCachedBlocks() {
    BlockManager m = manager(32);
    int[] plain = tokens(1, 13);
    int[] sharing = concat(tokens(1, 8), tokens(300, 9));
    int[] adapter = tokens(1, 9);
    m.computed(m.admit(1, plain, null), 13);
    m.computed(m.admit(2, sharing, null), 17);
    m.computed(m.admit(3, adapter, "sql-lora"), 9);

    BlockHasher h = new BlockHasher(BS);
    long[] expected =
        LongStream.concat(
                LongStream.concat(
                    LongStream.of(h.requestHashes(plain, 0)),
                    LongStream.of(h.requestHashes(sharing, 0)).skip(2)),
                LongStream.of(h.requestHashes(adapter, BlockHasher.firstParent("sql-lora", null))))
            .toArray();
    assertThat(expected).hasSize(3 + 2 + 2);
    assertThat(m.cachedRouterHashes()).isEqualTo(unsignedSorted(expected));
    assertThat(m.cachedRouterHashes()).isEqualTo(events.routerHashes());
    assertThat(m.cachedPrefixBlocks(adapter, "other-lora")).isZero();
    assertThat(m.cachedPrefixBlocks(adapter, "sql-lora")).isEqualTo(2);
  }

  @Test
  void resetClearsTheCacheOnlyWithoutLiveSequences() {
    BlockManager m = manager(8);
    Sequence s = m.admit(1, tokens(1, 9), null);
    m.computed(s, 9);
    assertThatThrownBy(m::reset).isInstanceOf(IllegalStateException.class);
    m.release(s);

    m.reset();

    assertThat(events.events.get(events.events.size() - 1)).isInstanceOf(Cleared.class);
    assertThat(m.cachedBlocks()).isZero();
    assertThat(m.cachedRouterHashes()).isEmpty();
    assertThat(m.cachedPrefixBlocks(tokens(1, 9), null)).isZero();
    assertThat(m.freeBlocks()).isEqualTo(8);
    // Reused blocks were cleared, so allocating them reports no removal.
    events.clear();
    m.admit(2, tokens(50, 32), null);
    assertThat(events.events).isEmpty();
    m.checkInvariants();
  }

  @Test
  void releasedSequencesRejectFurtherUse() {
    BlockManager m = manager(4);
    Sequence s = m.admit(1, tokens(1, 5), null);
    m.release(s);
    m.release(s);
    assertThat(s.isReleased()).isTrue();
    assertThatThrownBy(() -> m.computed(s, 5)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> m.append(s, 1)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> manager(4).release(s)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> m.admit(2, new int[0], null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(m.freeBlocks()).isEqualTo(4);
    m.checkInvariants();
  }
}
