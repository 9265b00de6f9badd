package io.infera.router.kv;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The block-hash chains of prompts hashed before, by their token-id array (identity), so a prompt
 * whose leading ids were copied from an earlier one (the tokenizer's prefix cache, {@link
 * io.infera.router.tokenize.Tokenized#reusedFrom}) reuses that chain instead of hashing the shared
 * blocks again.
 *
 * <p>Why it is exact: a block hash depends only on the chain's first parent and the ids up to the
 * block's end; the reused ids are a copy of the earlier array's first ids, so every block within
 * them hashes as it did there. Nothing is compared or trusted beyond that: an array is looked up by
 * identity, never by content, and a chain is used only under the same first parent (LoRA, cache
 * salt).
 *
 * <p>Bounded without a budget of its own: entries are weakly keyed by the id arrays, so a chain
 * lives exactly as long as its prompt's ids are held by someone else (the prefix cache, bounded by
 * {@code tokenizer.prefixCacheTokens}, or a request in flight). A chain costs 8 bytes per block,
 * 1/64 of its ids at 16-token blocks. Thread-safe.
 */
public final class ChainMemo {

  private record Chain(long firstParent, long[] hashes) {}

  private final Map<int[], Chain> byIds = Collections.synchronizedMap(new WeakHashMap<>());
  private final AtomicLong reusedBlocks = new AtomicLong();
  private final AtomicLong hashedBlocks = new AtomicLong();

  /**
   * Remembers {@code hashes} as the chain of {@code ids} from {@code firstParent}. The caller must
   * not modify either array afterwards.
   */
  void remember(int[] ids, long firstParent, long[] hashes) {
    byIds.put(ids, new Chain(firstParent, hashes));
  }

  /** The chain remembered for exactly this array under {@code firstParent}, or null. */
  long[] chainOf(int[] ids, long firstParent) {
    Chain c = byIds.get(ids);
    return c == null || c.firstParent() != firstParent ? null : c.hashes();
  }

  void counted(int reused, int hashed) {
    reusedBlocks.addAndGet(reused);
    hashedBlocks.addAndGet(hashed);
  }

  /** Blocks taken from a remembered chain instead of being hashed. */
  public long reusedBlocks() {
    return reusedBlocks.get();
  }

  /** Blocks hashed (not reused). */
  public long hashedBlocks() {
    return hashedBlocks.get();
  }
}
