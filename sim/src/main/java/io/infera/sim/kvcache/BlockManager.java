package io.infera.sim.kvcache;

import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.LongLongMap;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;
import net.openhft.hashing.LongHashFunction;

/**
 * A prefix-caching paged KV cache, modelled on vLLM v1's block pool and KV-cache manager.
 *
 * <p>The cache has {@link #numBlocks()} blocks of {@link #blockSize()} token slots. A full block
 * whose KV is computed is <em>cached</em> under its engine hash: {@code murmur3_64(seed =
 * hashSeed)} over {@code u64_le(parent) ‖ u32_le(t0) ‖ …}, chained from 0 (or the seeded hash of
 * the LoRA name's UTF-8 bytes) — deliberately not the router's hash, and different per seed like
 * vLLM's hashes under {@code PYTHONHASHSEED}. Blocks carry reference counts; a block nobody
 * references sits in a free queue, still cached if it was, until allocation evicts it from the
 * queue's head (least recently used). A released sequence's blocks join the tail last block first,
 * so leaves go before their parents. Every store, eviction and reset is reported to the {@link
 * KvEventListener} before the call returns.
 *
 * <p>Not thread-safe: one engine thread owns the manager and its sequences.
 */
public final class BlockManager {

  private static final int NIL = -1;
  private static final VarHandle LE_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LE_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final int numBlocks;
  private final int blockSize;
  private final KvEventListener listener;
  private final LongHashFunction engineHash;
  private final byte[] scratch;
  private final BlockHasher routerHasher;

  private final int[] refCount;
  // Per block, meaningful while cached[b]: its engine hash, its parent's (or the chain root
  // marker) and its router hash (the chain of docs/contracts.md, "Block hashing"; for
  // cachedRouterHashes()).
  private final boolean[] cached;
  private final long[] engineHashOf;
  private final long[] parentOf;
  private final boolean[] rootOf;
  private final long[] routerHashOf;
  // engine hash → block id of every cached block; a hash is cached in at most one block.
  private final LongLongMap byHash;

  // Free queue (refCount == 0): a doubly linked list, head evicted first.
  private final int[] prev;
  private final int[] next;
  private final boolean[] queued;
  private int head = NIL;
  private int tail = NIL;
  private int freeCount;

  private final Set<Sequence> live = Collections.newSetFromMap(new IdentityHashMap<>());
  private long prefixQueryTokens;
  private long prefixHitTokens;

  /**
   * @param numBlocks KV-cache capacity in blocks, {@code >= 1}
   * @param blockSize tokens per block (vLLM {@code --block-size}), {@code >= 1}
   * @param hashSeed seed of the engine's block hashes (plays the role of {@code PYTHONHASHSEED})
   * @param listener receives the KV events, or null for none
   */
  public BlockManager(int numBlocks, int blockSize, long hashSeed, KvEventListener listener) {
    if (numBlocks < 1) {
      throw new IllegalArgumentException("numBlocks must be >= 1, got " + numBlocks);
    }
    if (blockSize < 1) {
      throw new IllegalArgumentException("blockSize must be >= 1, got " + blockSize);
    }
    this.numBlocks = numBlocks;
    this.blockSize = blockSize;
    this.listener = listener == null ? KvEventListener.NONE : listener;
    this.engineHash = LongHashFunction.murmur_3(hashSeed);
    this.scratch = new byte[8 + 4 * blockSize];
    this.routerHasher = new BlockHasher(blockSize);
    this.refCount = new int[numBlocks];
    this.cached = new boolean[numBlocks];
    this.engineHashOf = new long[numBlocks];
    this.parentOf = new long[numBlocks];
    this.rootOf = new boolean[numBlocks];
    this.routerHashOf = new long[numBlocks];
    this.byHash = new LongLongMap(Math.min(numBlocks, 1 << 16));
    this.prev = new int[numBlocks];
    this.next = new int[numBlocks];
    this.queued = new boolean[numBlocks];
    for (int b = 0; b < numBlocks; b++) {
      pushTail(b);
    }
  }

  /** Tokens per block. */
  public int blockSize() {
    return blockSize;
  }

  /** Capacity in blocks. */
  public int numBlocks() {
    return numBlocks;
  }

  /**
   * Blocks no live sequence references: empty ones plus cached-but-evictable ones; {@code 0 ..
   * numBlocks()}.
   */
  public int freeBlocks() {
    return freeCount;
  }

  /** Referenced blocks / {@link #numBlocks()}, in {@code [0, 1]} (vLLM's gpu_cache_usage_perc). */
  public double usage() {
    return (double) (numBlocks - freeCount) / numBlocks;
  }

  /** Blocks currently cached (referenced or evictable). */
  public int cachedBlocks() {
    return byHash.size();
  }

  /** Live (admitted, not yet released) sequences. */
  public int liveSequences() {
    return live.size();
  }

  /**
   * Pure lookup: how many leading full blocks of {@code tokens} (under {@code loraName}) are
   * cached. Changes nothing, not even recency.
   *
   * @param loraName adapter name, or null
   * @return {@code 0 .. tokens.length / blockSize()}
   */
  public int cachedPrefixBlocks(int[] tokens, String loraName) {
    long parent = engineRoot(loraName);
    int full = tokens.length / blockSize;
    for (int b = 0; b < full; b++) {
      parent = engineBlockHash(parent, tokens, b * blockSize);
      if (!byHash.containsKey(parent)) {
        return b;
      }
    }
    return full;
  }

  /**
   * Admits a sequence: references its cached prompt prefix and allocates blocks for the rest of the
   * prompt, evicting least recently used cached blocks as needed (one {@code blockRemoved}). The
   * hit never covers the prompt's last token: {@link Sequence#cachedTokens()} is {@code
   * min(hitBlocks, (promptTokens - 1) / blockSize) * blockSize}. Counts the prompt in {@link
   * #prefixQueryTokens()} and the hit in {@link #prefixHitTokens()}.
   *
   * @param seqId caller's id for the sequence (not interpreted)
   * @param promptTokens at least one token; copied
   * @param loraName adapter name, or null
   * @return the sequence, or null — with nothing changed — when free plus evictable blocks do not
   *     cover the prompt
   */
  public Sequence admit(long seqId, int[] promptTokens, String loraName) {
    Objects.requireNonNull(promptTokens, "promptTokens");
    int len = promptTokens.length;
    if (len == 0) {
      throw new IllegalArgumentException("empty prompt");
    }
    int maxHit = (len - 1) / blockSize;
    int[] hitBlocks = new int[maxHit];
    long[] hitHashes = new long[maxHit];
    int hit = 0;
    int evictableHits = 0;
    long parent = engineRoot(loraName);
    while (hit < maxHit) {
      long h = engineBlockHash(parent, promptTokens, hit * blockSize);
      int slot = byHash.find(h);
      if (slot < 0) {
        break;
      }
      int block = (int) byHash.valueAt(slot);
      if (refCount[block] == 0) {
        evictableHits++;
      }
      hitBlocks[hit] = block;
      hitHashes[hit] = h;
      parent = h;
      hit++;
    }
    int total = (len + blockSize - 1) / blockSize;
    int fresh = total - hit;
    if (fresh > freeCount - evictableHits) {
      return null;
    }
    int[] blocks = Arrays.copyOf(hitBlocks, total);
    for (int b = 0; b < hit; b++) {
      incRef(blocks[b]);
    }
    long[] evicted = new long[fresh];
    int removed = 0;
    for (int b = hit; b < total; b++) {
      int block = head;
      if (cached[block]) {
        evicted[removed++] = engineHashOf[block];
      }
      blocks[b] = take(block);
    }
    if (removed > 0) {
      listener.blockRemoved(Arrays.copyOf(evicted, removed));
    }
    Sequence s = new Sequence(this, seqId, promptTokens, loraName, hit * blockSize, blocks);
    System.arraycopy(hitHashes, 0, s.hashes, 0, hit);
    s.hashedBlocks = hit;
    live.add(s);
    prefixQueryTokens += len;
    prefixHitTokens += (long) hit * blockSize;
    return s;
  }

  /**
   * Records that the KV of tokens {@code [0, computedTokens)} of {@code s} is now computed. Every
   * full block completed by this call becomes cached and is reported in ONE {@code blockStored} (a
   * block whose hash another block already caches is swapped for that block, which is not reported
   * again). Values at or below the current computed count change nothing.
   *
   * @param computedTokens {@code <= s.length()}
   * @throws IllegalStateException when {@code s} was released or belongs to another manager
   */
  public void computed(Sequence s, int computedTokens) {
    checkLive(s);
    if (computedTokens > s.length) {
      throw new IllegalArgumentException(
          "computedTokens " + computedTokens + " > sequence length " + s.length);
    }
    if (computedTokens <= s.computedTokens) {
      return;
    }
    s.computedTokens = computedTokens;
    int full = computedTokens / blockSize;
    int first = s.hashedBlocks;
    if (full <= first) {
      return;
    }
    long parent = first == 0 ? engineRoot(s.loraName) : s.hashes[first - 1];
    long routerParent =
        first == 0 ? BlockHasher.firstParent(s.loraName, null) : routerHashOf[s.blocks[first - 1]];
    int storeFrom = -1;
    for (int b = first; b < full; b++) {
      int offset = b * blockSize;
      long h = engineBlockHash(parent, s.tokens, offset);
      int own = s.blocks[b];
      int slot = byHash.find(h);
      if (slot >= 0) {
        // Computed twice (e.g. two identical prompts admitted before either finished): keep the
        // cached copy, free ours. The cache is prefix-closed, so this only happens before the
        // first block stored by this call.
        if (storeFrom >= 0) {
          throw new IllegalStateException("cached block after a newly stored one in " + s);
        }
        int other = (int) byHash.valueAt(slot);
        incRef(other);
        s.blocks[b] = other;
        if (--refCount[own] != 0) {
          throw new IllegalStateException("uncached block " + own + " shared by " + s);
        }
        pushHead(own);
      } else {
        if (storeFrom < 0) {
          storeFrom = b;
        }
        cached[own] = true;
        engineHashOf[own] = h;
        rootOf[own] = b == 0;
        parentOf[own] = parent;
        routerHashOf[own] = routerHasher.hashBlock(routerParent, s.tokens, offset);
        byHash.put(h, own);
      }
      routerParent = routerHashOf[s.blocks[b]];
      s.hashes[b] = h;
      parent = h;
    }
    s.hashedBlocks = full;
    if (storeFrom >= 0) {
      listener.blockStored(
          Arrays.copyOfRange(s.hashes, storeFrom, full),
          storeFrom == 0 ? null : s.hashes[storeFrom - 1],
          Arrays.copyOfRange(s.tokens, storeFrom * blockSize, full * blockSize),
          s.loraName);
    }
  }

  /**
   * Appends a generated token to {@code s}, allocating (and possibly evicting, one {@code
   * blockRemoved}) a block when the last one is full. Its KV is not computed until {@link
   * #computed}.
   *
   * @return false — with nothing changed — when no block is free or evictable: the caller preempts
   * @throws IllegalStateException when {@code s} was released or belongs to another manager
   */
  public boolean append(Sequence s, int tokenId) {
    checkLive(s);
    if (s.length == s.blockCount * blockSize) {
      if (freeCount == 0) {
        return false;
      }
      int block = head;
      long evicted = engineHashOf[block];
      boolean wasCached = cached[block];
      s.addBlock(take(block));
      if (wasCached) {
        listener.blockRemoved(new long[] {evicted});
      }
    }
    s.addToken(tokenId);
    return true;
  }

  /**
   * Drops {@code s}'s references. Blocks nobody references any more join the free queue's tail,
   * last block first; cached ones stay cached until evicted. Releasing twice changes nothing.
   *
   * @throws IllegalStateException when {@code s} belongs to another manager
   */
  public void release(Sequence s) {
    if (s.owner != this) {
      throw new IllegalStateException("sequence of another block manager: " + s);
    }
    if (s.released) {
      return;
    }
    for (int b = s.blockCount - 1; b >= 0; b--) {
      int block = s.blocks[b];
      if (refCount[block] <= 0) {
        throw new IllegalStateException("block " + block + " released below zero by " + s);
      }
      if (--refCount[block] == 0) {
        pushTail(block);
      }
    }
    s.released = true;
    live.remove(s);
  }

  /**
   * Drops every cached block and reports {@code allCleared} (vLLM's prefix-cache reset).
   *
   * @throws IllegalStateException while any sequence is live
   */
  public void reset() {
    if (!live.isEmpty()) {
      throw new IllegalStateException(
          "prefix cache reset with " + live.size() + " live sequence(s)");
    }
    Arrays.fill(cached, false);
    byHash.clear();
    listener.allCleared();
  }

  /**
   * The router hashes ({@link BlockHasher} chain from {@code BlockHasher.firstParent(loraName,
   * null)}; docs/contracts.md, "Block hashing") of every cached block, sorted as unsigned longs —
   * what a router's view of this engine should hold.
   */
  public long[] cachedRouterHashes() {
    long[] out = new long[byHash.size()];
    int n = 0;
    for (int b = 0; b < numBlocks; b++) {
      if (cached[b]) {
        out[n++] = routerHashOf[b] ^ Long.MIN_VALUE;
      }
    }
    Arrays.sort(out);
    for (int i = 0; i < n; i++) {
      out[i] ^= Long.MIN_VALUE;
    }
    return out;
  }

  /** Cumulative prompt tokens looked up at successful admissions (vLLM prefix-cache queries). */
  public long prefixQueryTokens() {
    return prefixQueryTokens;
  }

  /** Cumulative admitted prompt tokens served from the cache (vLLM prefix-cache hits). */
  public long prefixHitTokens() {
    return prefixHitTokens;
  }

  // ---- test support ----

  /** Engine hashes of every cached block, sorted as signed longs. */
  long[] cachedEngineHashes() {
    long[] out = new long[byHash.size()];
    int[] n = {0};
    byHash.forEach((k, v) -> out[n[0]++] = k);
    Arrays.sort(out);
    return out;
  }

  /** Checks every internal invariant; throws {@link AssertionError} naming the first broken one. */
  void checkInvariants() {
    int[] expectedRefs = new int[numBlocks];
    for (Sequence s : live) {
      check(!s.released, "released sequence still live: " + s);
      check(s.blockCount == (s.length + blockSize - 1) / blockSize, "block count of " + s);
      check(s.hashedBlocks == s.computedTokens / blockSize, "hashed blocks of " + s);
      for (int b = 0; b < s.blockCount; b++) {
        expectedRefs[s.blocks[b]]++;
      }
      for (int b = 0; b < s.hashedBlocks; b++) {
        int block = s.blocks[b];
        check(cached[block] && engineHashOf[block] == s.hashes[b], "uncached computed block");
      }
    }
    int queuedCount = 0;
    int prevBlock = NIL;
    for (int b = head; b != NIL; b = next[b]) {
      check(queued[b] && prev[b] == prevBlock, "free queue links at " + b);
      prevBlock = b;
      queuedCount++;
    }
    check(prevBlock == tail, "free queue tail");
    check(queuedCount == freeCount, "free count " + freeCount + " vs queue " + queuedCount);
    int cachedCount = 0;
    for (int b = 0; b < numBlocks; b++) {
      check(refCount[b] >= 0, "negative refcount at " + b);
      check(refCount[b] == expectedRefs[b], "refcount of block " + b);
      check(queued[b] == (refCount[b] == 0), "queued iff unreferenced at " + b);
      if (cached[b]) {
        cachedCount++;
        check(byHash.get(engineHashOf[b], NIL) == b, "hash map entry of block " + b);
        check(rootOf[b] || byHash.containsKey(parentOf[b]), "parent of cached block " + b);
      }
    }
    check(cachedCount == byHash.size(), "hash map size");
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  // ---- internals ----

  private void checkLive(Sequence s) {
    if (s.owner != this) {
      throw new IllegalStateException("sequence of another block manager: " + s);
    }
    if (s.released) {
      throw new IllegalStateException("sequence already released: " + s);
    }
  }

  private long engineRoot(String loraName) {
    if (loraName == null || loraName.isEmpty()) {
      return 0L;
    }
    return engineHash.hashBytes(loraName.getBytes(StandardCharsets.UTF_8));
  }

  private long engineBlockHash(long parent, int[] tokens, int offset) {
    byte[] b = scratch;
    LE_LONG.set(b, 0, parent);
    for (int i = 0; i < blockSize; i++) {
      LE_INT.set(b, 8 + 4 * i, tokens[offset + i]);
    }
    return engineHash.hashBytes(b);
  }

  /** Takes a free block for a new owner: evicts it from the cache if it was cached. */
  private int take(int block) {
    unlink(block);
    if (cached[block]) {
      cached[block] = false;
      byHash.remove(engineHashOf[block]);
    }
    refCount[block] = 1;
    return block;
  }

  private void incRef(int block) {
    if (refCount[block]++ == 0) {
      unlink(block);
    }
  }

  private void pushTail(int block) {
    prev[block] = tail;
    next[block] = NIL;
    if (tail == NIL) {
      head = block;
    } else {
      next[tail] = block;
    }
    tail = block;
    queued[block] = true;
    freeCount++;
  }

  private void pushHead(int block) {
    prev[block] = NIL;
    next[block] = head;
    if (head == NIL) {
      tail = block;
    } else {
      prev[head] = block;
    }
    head = block;
    queued[block] = true;
    freeCount++;
  }

  private void unlink(int block) {
    int p = prev[block];
    int n = next[block];
    if (p == NIL) {
      head = n;
    } else {
      next[p] = n;
    }
    if (n == NIL) {
      tail = p;
    } else {
      prev[n] = p;
    }
    queued[block] = false;
    freeCount--;
  }
}
