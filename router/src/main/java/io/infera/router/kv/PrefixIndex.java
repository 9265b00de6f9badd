package io.infera.router.kv;

import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * Every worker's cached-block set, as router hashes, and the prefix match over all of them.
 *
 * <p>Each {@link SourceId} (worker, dp rank) has a view built by re-hashing {@code
 * BlockStored.token_ids} with the router's chain (the parent's router hash is looked up through the
 * source's engine-hash map); engine hashes are used only to find what {@code BlockRemoved} removes.
 * Duplicate stores and removes are reference-counted. Lower-tier and non-full-attention events are
 * kept out. Sequence numbers are tracked per source: a gap marks the source degraded until {@link
 * #resync}, a sequence that goes down clears it (engine restart).
 *
 * <p>Block sizes are per source: the configured page size is what every source is expected to use,
 * but an attention backend may force another one, so a source's size is learned from its first
 * device-tier full-attention {@code BlockStored} (or a non-empty snapshot) and its blocks are
 * hashed at that size. A later store with another size means the engine now runs with it: the view
 * is cleared and the new size adopted. {@link #match(RequestHashes)} matches each source against
 * the request's chain at its size and reports hits in blocks of the page size. At most {@link
 * #MAX_BLOCK_SIZES} distinct sizes (the page size included) are in use at once, each in {@code [1,
 * }{@link #MAX_BLOCK_SIZE}{@code ]}; stores beyond that are dropped ({@code block_size_mismatch}).
 *
 * <p>Bounds ({@link IndexLimits}): a view holds at most {@code maxBlocksPerSource} blocks and all
 * views together {@code maxBlocks}; stores past either are refused and counted, never evicted, so
 * reference counts stay exact. Resets (sequence down, {@code AllBlocksCleared}, another block size)
 * of a non-empty view are rate-limited per source. Memory: {@link #heapBytes}.
 *
 * <p>Threading: {@link #apply}, {@link #purge}, {@link #resync} and {@link #viewHashes} belong to
 * one writer thread. {@link #match}, {@link #stats} and {@link #blocks} may be called from any
 * thread at any time; they take no lock and never block on the writer.
 */
public final class PrefixIndex {

  /**
   * Distinct block sizes in use at once, the page size included: each costs a chain per request.
   */
  public static final int MAX_BLOCK_SIZES = 4;

  /** Largest block size accepted from an event or snapshot (vLLM hybrid models reach 1,000s). */
  public static final int MAX_BLOCK_SIZE = 16_384;

  /**
   * Heap bytes per block of the cap ({@link IndexLimits#maxBlocks}) the index takes at worst, in a
   * fleet of at most 64 sources: the shared table (a key and one bitset word, 16 bytes a slot;
   * grown 1.5× only when over half its slots are live, so at most 3 slots per block of the cap: 48)
   * plus the views' maps (16 bytes a slot at a load of at least 1/4: 64 per block held), plus 32
   * while the shared table is rebuilt (both generations live). Typical is well below: 56.7 bytes
   * per block measured at 1 M unshared blocks over 64 sources, 35.4 when four sources share each
   * block ({@code IndexMemoryBench}); {@code IndexSizingTest} checks the bound under churn.
   */
  public static final long BYTES_PER_BLOCK = 144;

  /**
   * Extra heap bytes per block of the cap for each further 64 sources (the shared bitsets widen a
   * word: 8 bytes on at most 3 slots per block, and the rebuild's transient).
   */
  public static final long BYTES_PER_BLOCK_PER_64_SOURCES = 40;

  /**
   * Heap a router needs besides its index (request bodies being analysed, tokenizer output, chat
   * templates, the approximate index, Vert.x buffers): the operator sizes router memory as this
   * plus {@link #heapBytes} of the configured cap, divided by the heap fraction.
   */
  public static final long HEAP_RESERVE_BYTES = 448L << 20;

  private static final long NO_SEQ = Long.MIN_VALUE;
  private static final int[] NO_SIZES = {};
  private static final long[][] NO_MASKS = {};
  // Blocks updated together: their slots are touched first so the cache misses overlap.
  private static final int BATCH = 32;

  /** Writer-owned state of one source. */
  private static final class Source {
    final SourceId id;
    final int slot;
    // engine hash → router hash, one entry per distinct engine hash held.
    final LongLongMap engineToRouter = new LongLongMap();
    // engine hash → extra references beyond the first (duplicate stores); usually empty.
    final LongLongMap extraRefs = new LongLongMap(4);
    // router hash → extra engine hashes mapping to it within this source; usually empty.
    final LongLongMap routerDups = new LongLongMap(4);
    final Set<Integer> ignoredGroups = new HashSet<>(2);
    // Drops of this source by DropReason ordinal; written by the writer, read by any thread.
    final AtomicLongArray dropped = new AtomicLongArray(DropReason.values().length);
    long blocks;
    long lastSeq = NO_SEQ;
    // The block size this view is hashed at; 0 until learned (then the page size is assumed).
    int blockSize;
    BlockHasher hasher;
    volatile int publishedBlockSize;
    volatile long blockSizeChanges;
    // Published for readers at the end of each apply.
    volatile long publishedBlocks;
    volatile long publishedSeq = NO_SEQ;
    volatile boolean degraded;
    volatile long batches;
    // Reset bucket: tokens as of resetRefillAt (nanos); views wiped so far.
    double resetTokens;
    long resetRefillAt;
    volatile long resets;

    Source(SourceId id, int slot, BlockHasher pageHasher, double resetTokens, long now) {
      this.id = id;
      this.slot = slot;
      this.hasher = pageHasher;
      this.resetTokens = resetTokens;
      this.resetRefillAt = now;
    }
  }

  /**
   * What readers need: slot → source (null when free), slot → id, the live-slot bitset, the bitset
   * of slots at the page size (or not yet known), and per other block size in use its bitset.
   */
  private record Slots(
      Source[] sources,
      SourceId[] bySlot,
      long[] active,
      long[] pageActive,
      int[] otherSizes,
      long[][] otherActive) {}

  private final int pageSize;
  private final IndexLimits limits;
  private final LongSupplier nanoClock;
  private final BlockHasher hasher;
  private final BlockTable table = new BlockTable();
  private final Map<SourceId, Source> sources = new HashMap<>();
  private final List<Source> bySlot = new ArrayList<>();
  private final AtomicLongArray dropped = new AtomicLongArray(DropReason.values().length);
  // Drops of a worker not tied to one of its views (decode errors, ranks out of range).
  private final Map<WorkerId, AtomicLongArray> workerDrops = new ConcurrentHashMap<>();
  private final Map<Integer, BlockHasher> hashers = new HashMap<>();
  private volatile Slots slots =
      new Slots(new Source[0], new SourceId[0], new long[1], new long[1], NO_SIZES, NO_MASKS);
  // Writer-only scratch for a batch's router hashes, and a sink that keeps touches alive.
  private long[] scratch = new long[BATCH];
  private long sink;
  // Blocks held by all views (writer), and as published for readers.
  private long held;
  private volatile long publishedHeld;

  /**
   * @param pageSize the block size every source is expected to use (a source may turn out to use
   *     another); the unit of {@link MatchResult} hits
   */
  public PrefixIndex(int pageSize) {
    this(pageSize, IndexLimits.trusted(), System::nanoTime);
  }

  /**
   * @param limits caps and the reset rate ({@link IndexLimits#defaults()} for a router)
   * @param nanoClock {@link System#nanoTime()} or a test clock, for the reset buckets
   */
  public PrefixIndex(int pageSize, IndexLimits limits, LongSupplier nanoClock) {
    this.pageSize = pageSize;
    this.limits = limits;
    this.nanoClock = nanoClock;
    this.hasher = new BlockHasher(pageSize);
    hashers.put(pageSize, hasher);
  }

  public int pageSize() {
    return pageSize;
  }

  public IndexLimits limits() {
    return limits;
  }

  /**
   * Heap bytes an index holding {@code blocks} blocks over {@code sources} sources may take at
   * worst: the sizing rule of docs/operations.md ("Sizing the index").
   */
  public static long heapBytes(long blocks, int sources) {
    long widen = Math.max(0, (sources - 1) / 64);
    return blocks * (BYTES_PER_BLOCK + widen * BYTES_PER_BLOCK_PER_64_SOURCES);
  }

  /**
   * The heap a router with index cap {@code maxBlocks} over {@code sources} sources needs: {@link
   * #HEAP_RESERVE_BYTES} plus {@link #heapBytes}. The container's memory is this divided by the
   * heap fraction ({@code -XX:MaxRAMPercentage}).
   */
  public static long routerHeapBytes(long maxBlocks, int sources) {
    return HEAP_RESERVE_BYTES + heapBytes(maxBlocks, sources);
  }

  /** Whether {@code size} can be a block size at all: in {@code [1, MAX_BLOCK_SIZE]}. */
  public static boolean usableBlockSize(int size) {
    return size >= 1 && size <= MAX_BLOCK_SIZE;
  }

  /**
   * Any thread: the block sizes other than the page size that some source uses now, ascending (a
   * request is hashed once at each; usually none).
   */
  public int[] otherBlockSizes() {
    int[] sizes = slots.otherSizes;
    return sizes.length == 0 ? sizes : sizes.clone();
  }

  // ---------------------------------------------------------------- writer

  /**
   * Writer: applies one batch from {@code worker}.
   *
   * @param seq the engine's batch sequence, or {@link KvEventMessage#NO_SEQ} when it sent none
   */
  public ApplyOutcome apply(WorkerId worker, long seq, EventBatch batch) {
    Source src = source(new SourceId(worker, batch.rank()));
    ApplyOutcome outcome = ApplyOutcome.APPLIED;
    if (seq != KvEventMessage.NO_SEQ) {
      if (src.lastSeq != NO_SEQ) {
        if (seq == src.lastSeq) {
          count(src, DropReason.DUPLICATE_BATCH, 1);
          return ApplyOutcome.DUPLICATE;
        } else if (seq < src.lastSeq) {
          if (!allowReset(src)) {
            // Kept whole: the batch is dropped and the sequence not taken, so the next one of the
            // restarted engine is another reset attempt.
            return ApplyOutcome.RESET_REFUSED;
          }
          clearView(src);
          src.degraded = false;
          outcome = ApplyOutcome.RESTARTED;
        } else if (seq > src.lastSeq + 1) {
          src.degraded = true;
          outcome = ApplyOutcome.GAP;
        }
      }
      src.lastSeq = seq;
      src.publishedSeq = seq;
    }
    if (batch.skipped().total() > 0) {
      batch.skipped().forEach((reason, n) -> count(src, reason, n));
    }
    for (KvEvent e : batch.events()) {
      // Java 17 has no pattern switch; KvEvent is sealed to exactly these three.
      if (e instanceof BlockStored s) {
        stored(src, s);
      } else if (e instanceof BlockRemoved r) {
        removed(src, r);
      } else if (e instanceof AllBlocksCleared c) {
        if (!KvEvent.isDeviceTier(c.medium())) {
          count(src, DropReason.LOWER_TIER, 1);
        } else if (allowReset(src)) {
          clearView(src);
        }
      }
    }
    src.publishedBlocks = src.blocks;
    src.batches = src.batches + 1;
    publishedHeld = held;
    return outcome;
  }

  /**
   * Writer: the view of {@code id} as a snapshot at stream watermark {@code streamSeq} (an empty
   * view when the source is unknown).
   */
  public ViewSnapshot snapshot(SourceId id, long streamSeq) {
    Source src = sources.get(id);
    if (src == null) {
      return new ViewSnapshot(pageSize, NO_SEQ, streamSeq, new long[0], new long[0]);
    }
    int size = src.blockSize == 0 ? pageSize : src.blockSize;
    int n = src.engineToRouter.size();
    long[] extra = {0};
    src.extraRefs.forEach((engine, count) -> extra[0] += count);
    long[] routers = new long[n + (int) extra[0]];
    long[] engines = new long[routers.length];
    int[] at = {0};
    src.engineToRouter.forEach(
        (engine, router) -> {
          long copies = 1 + src.extraRefs.get(engine, 0);
          for (long c = 0; c < copies; c++) {
            engines[at[0]] = engine;
            routers[at[0]++] = router;
          }
        });
    return ViewSnapshot.of(size, src.lastSeq, streamSeq, routers, engines);
  }

  /**
   * Writer: whether {@link #seed} would take {@code snapshot} for {@code id}: an empty one always
   * (it says nothing about the size); otherwise its block size must be usable and, when it is new
   * to the fleet, within {@link #MAX_BLOCK_SIZES}.
   */
  public boolean acceptsSnapshot(SourceId id, ViewSnapshot snapshot) {
    if (snapshot.size() == 0) {
      return true;
    }
    Source src = sources.get(id);
    return canAdopt(src, snapshot.blockSize());
  }

  /**
   * Writer: replaces the view of {@code id} by {@code snapshot} (its last engine sequence included,
   * degraded mark cleared): how a starting router warms up without replaying the whole stream. A
   * non-empty snapshot also sets the source's block size to the snapshot's.
   *
   * @throws IllegalArgumentException when {@link #acceptsSnapshot} is false
   */
  public void seed(SourceId id, ViewSnapshot snapshot) {
    if (!acceptsSnapshot(id, snapshot)) {
      throw new IllegalArgumentException(
          "snapshot block size " + snapshot.blockSize() + " cannot be used for " + id);
    }
    Source src = source(id);
    clearView(src);
    if (snapshot.size() > 0 && snapshot.blockSize() != src.blockSize) {
      setBlockSize(src, snapshot.blockSize());
    }
    long[] routers = snapshot.routerHashes();
    long[] engines = snapshot.engineHashes();
    // Room in the view's map for what the limits let in, at once: not a rehash per 1.5× on the
    // way up (trimmed below if duplicates left it under a quarter full, as the sizing rule says).
    src.engineToRouter.ensureCapacity((int) Math.min(routers.length, limits.maxBlocksPerSource()));
    long sourceFull = 0;
    long indexFull = 0;
    for (int i = 0; i < routers.length; i++) {
      if (!store(src, engines[i], routers[i])) {
        if (fullReason(src) == DropReason.SOURCE_FULL) {
          sourceFull++;
        } else {
          indexFull++;
        }
      }
    }
    if (sourceFull > 0) {
      count(src, DropReason.SOURCE_FULL, sourceFull);
    }
    if (indexFull > 0) {
      count(src, DropReason.INDEX_FULL, indexFull);
    }
    src.engineToRouter.trim();
    publishedHeld = held;
    src.lastSeq = snapshot.engineSeq();
    src.publishedSeq = snapshot.engineSeq();
    src.degraded = false;
    src.publishedBlocks = src.blocks;
  }

  /** Writer: counts a payload from {@code worker} that could not be decoded. */
  public void recordDecodeError(WorkerId worker) {
    reject(worker, DropReason.DECODE_ERROR);
  }

  /**
   * Writer: counts a batch or snapshot of {@code worker} dropped before it reached a view (a decode
   * error, a rank out of range); no source is created for it. Call only for workers discovery
   * knows: the counts live until {@link #purge}.
   */
  public void reject(WorkerId worker, DropReason reason) {
    global(reason, 1);
    AtomicLongArray a =
        workerDrops.computeIfAbsent(worker, w -> new AtomicLongArray(DropReason.values().length));
    a.incrementAndGet(reason.ordinal());
  }

  /** Writer: forgets every source of {@code worker} (it left discovery). */
  public void purge(WorkerId worker) {
    workerDrops.remove(worker);
    List<Source> gone = new ArrayList<>();
    for (Source s : sources.values()) {
      if (s.id.worker().equals(worker)) {
        gone.add(s);
      }
    }
    if (gone.isEmpty()) {
      return;
    }
    for (Source s : gone) {
      clearView(s);
      sources.remove(s.id);
      bySlot.set(s.slot, null);
    }
    publishedHeld = held;
    publishSlots();
  }

  /**
   * Writer: empties one source's view and forgets its sequence and degraded mark, so that a
   * snapshot or replay can rebuild it.
   */
  public void resync(SourceId id) {
    Source src = sources.get(id);
    if (src == null) {
      return;
    }
    clearView(src);
    src.lastSeq = NO_SEQ;
    src.publishedSeq = NO_SEQ;
    src.degraded = false;
    src.publishedBlocks = 0;
    publishedHeld = held;
  }

  /** Writer: the router hashes of a source's view, sorted unsigned (for snapshots and tests). */
  public long[] viewHashes(SourceId id) {
    Source src = sources.get(id);
    if (src == null) {
      return new long[0];
    }
    long[] out = new long[src.engineToRouter.size()];
    int[] n = {0};
    src.engineToRouter.forEach((engine, router) -> out[n[0]++] = router);
    long[] distinct = Arrays.stream(out).distinct().toArray();
    for (int i = 0; i < distinct.length; i++) {
      distinct[i] ^= Long.MIN_VALUE;
    }
    Arrays.sort(distinct);
    for (int i = 0; i < distinct.length; i++) {
      distinct[i] ^= Long.MIN_VALUE;
    }
    return distinct;
  }

  private Source source(SourceId id) {
    Source src = sources.get(id);
    if (src != null) {
      return src;
    }
    int slot = bySlot.indexOf(null);
    if (slot < 0) {
      slot = bySlot.size();
      bySlot.add(null);
    }
    table.ensureSlots(slot + 1);
    src =
        new Source(
            id,
            slot,
            hasher,
            limits.resetsBurst(),
            limits.limitsResets() ? nanoClock.getAsLong() : 0);
    bySlot.set(slot, src);
    sources.put(id, src);
    publishSlots();
    return src;
  }

  private void publishSlots() {
    Source[] srcs = bySlot.toArray(new Source[0]);
    SourceId[] ids = new SourceId[srcs.length];
    int words = Math.max(1, (ids.length + 63) >>> 6);
    long[] active = new long[words];
    TreeMap<Integer, long[]> other = new TreeMap<>();
    long[] page = active;
    for (int i = 0; i < ids.length; i++) {
      if (srcs[i] != null) {
        ids[i] = srcs[i].id;
        active[i >>> 6] |= 1L << i;
        int size = srcs[i].blockSize;
        if (size != 0 && size != pageSize) {
          other.computeIfAbsent(size, k -> new long[words])[i >>> 6] |= 1L << i;
        }
      }
    }
    int[] sizes = NO_SIZES;
    long[][] masks = NO_MASKS;
    if (!other.isEmpty()) {
      // Single-size fleets (the common case) share one bitset for both: no extra work per match.
      page = active.clone();
      sizes = new int[other.size()];
      masks = new long[other.size()][];
      int g = 0;
      for (Map.Entry<Integer, long[]> e : other.entrySet()) {
        sizes[g] = e.getKey();
        masks[g++] = e.getValue();
        for (int w = 0; w < words; w++) {
          page[w] &= ~e.getValue()[w];
        }
      }
    }
    // Hashers of sizes no source uses any more go: an engine cycling through sizes must not make
    // the writer keep one scratch buffer per size it ever sent.
    hashers.keySet().removeIf(size -> size != pageSize && !other.containsKey(size));
    slots = new Slots(srcs, ids, active, page, sizes, masks);
  }

  /** Writer: block hashers held (tests: bounded by the sizes in use). */
  int hashersHeld() {
    return hashers.size();
  }

  private void stored(Source src, BlockStored e) {
    if (!KvEvent.isDeviceTier(e.medium())) {
      count(src, DropReason.LOWER_TIER, 1);
      return;
    }
    if (!KvEvent.isFullAttention(e.kvCacheSpecKind())) {
      if (e.groupIdx() != null) {
        src.ignoredGroups.add(e.groupIdx());
      }
      count(src, DropReason.NON_FULL_ATTENTION, 1);
      return;
    }
    if (e.groupIdx() != null && src.ignoredGroups.contains(e.groupIdx())) {
      count(src, DropReason.NON_FULL_ATTENTION, 1);
      return;
    }
    long[] hashes = e.blockHashes();
    int[] tokens = e.tokenIds();
    int size = e.blockSize();
    // A source's size is 0 until learned, and 0 is never a usable size.
    boolean newSize = size != src.blockSize || size == 0;
    if (newSize && (!usableBlockSize(size) || hashes.length == 0)) {
      count(src, DropReason.BLOCK_SIZE_MISMATCH, 1);
      return;
    }
    if ((long) hashes.length * size != tokens.length) {
      count(src, DropReason.TOKEN_COUNT_MISMATCH, 1);
      return;
    }
    if (newSize) {
      if (!canAdopt(src, size)) {
        count(src, DropReason.BLOCK_SIZE_MISMATCH, 1);
        return;
      }
      // A size change wipes the view: a reset like any other.
      if (src.blockSize != 0 && !allowReset(src)) {
        return;
      }
      adoptBlockSize(src, size);
    }
    if (e.loraId() != null && e.loraName() == null) {
      count(src, DropReason.LORA_WITHOUT_NAME, 1);
      return;
    }
    long parent;
    if (e.parentBlockHash() == null) {
      parent = BlockHasher.firstParent(e.loraName(), e.cacheSalt());
    } else {
      int at = src.engineToRouter.find(e.parentBlockHash());
      if (at < 0) {
        count(src, DropReason.UNKNOWN_PARENT, 1);
        return;
      }
      parent = src.engineToRouter.valueAt(at);
    }
    long[] routers = scratch(hashes.length);
    BlockHasher h = src.hasher;
    for (int b = 0; b < hashes.length; b++) {
      parent = h.hashBlock(parent, tokens, b * size);
      routers[b] = parent;
    }
    LongLongMap map = src.engineToRouter;
    for (int from = 0; from < hashes.length; from += BATCH) {
      int to = Math.min(hashes.length, from + BATCH);
      // Touch every slot this batch will update first: the misses then overlap.
      long touched = 0;
      for (int b = from; b < to; b++) {
        touched += map.touch(hashes[b]) + table.touch(routers[b]);
      }
      sink += touched;
      for (int b = from; b < to; b++) {
        if (!store(src, hashes[b], routers[b])) {
          // The rest of the chain would only add to a full view.
          count(src, fullReason(src), hashes.length - b);
          return;
        }
      }
    }
  }

  /**
   * Whether {@code src} (null: a new source) may take block size {@code size}: usable, and either
   * the page size, a size another source already uses, or room for one more distinct size.
   */
  private boolean canAdopt(Source src, int size) {
    if (!usableBlockSize(size)) {
      return false;
    }
    if (size == pageSize || (src != null && size == src.blockSize)) {
      return true;
    }
    Set<Integer> others = new HashSet<>();
    for (Source s : sources.values()) {
      if (s != src && s.blockSize != 0 && s.blockSize != pageSize) {
        others.add(s.blockSize);
      }
    }
    return others.contains(size) || others.size() + 1 < MAX_BLOCK_SIZES;
  }

  /**
   * A full-attention store with a size other than the source's, which {@link #canAdopt} allowed:
   * learn it (first store), or, when the source had another, clear the view first — the engine
   * restarted with another backend (a view hashed at the old size can never match the new blocks).
   */
  private void adoptBlockSize(Source src, int size) {
    if (src.blockSize != 0) {
      clearView(src);
      src.blockSizeChanges = src.blockSizeChanges + 1;
    }
    setBlockSize(src, size);
  }

  /**
   * Whether a reset of {@code src} may wipe its view now: always when the view is empty (nothing to
   * lose) or resets are not limited; else when its bucket has a token (taken). A refused reset is
   * counted and marks the source degraded.
   */
  private boolean allowReset(Source src) {
    if (src.engineToRouter.isEmpty()) {
      return true;
    }
    if (limits.limitsResets()) {
      long now = nanoClock.getAsLong();
      double refill = (now - src.resetRefillAt) * (limits.resetsPerMinute() / 60e9);
      src.resetTokens = Math.min(limits.resetsBurst(), src.resetTokens + Math.max(0, refill));
      src.resetRefillAt = now;
      if (src.resetTokens < 1) {
        count(src, DropReason.RESET_RATE_LIMITED, 1);
        src.degraded = true;
        return false;
      }
      src.resetTokens -= 1;
    }
    src.resets = src.resets + 1;
    return true;
  }

  /** The cap a refused store of {@code src} ran into. */
  private DropReason fullReason(Source src) {
    return src.engineToRouter.size() >= limits.maxBlocksPerSource()
        ? DropReason.SOURCE_FULL
        : DropReason.INDEX_FULL;
  }

  private void setBlockSize(Source src, int size) {
    int before = src.blockSize == 0 ? pageSize : src.blockSize;
    src.blockSize = size;
    src.hasher = hashers.computeIfAbsent(size, BlockHasher::new);
    src.publishedBlockSize = size;
    if (before != size) {
      publishSlots();
    }
  }

  /**
   * Stores one (engine, router) pair; false when a cap refused it (nothing changed: the caller
   * counts it). Another reference to a held engine hash is always taken: it costs no entry.
   */
  private boolean store(Source src, long engine, long router) {
    LongLongMap map = src.engineToRouter;
    if ((map.size() >= limits.maxBlocksPerSource() || held >= limits.maxBlocks())
        && !map.containsKey(engine)) {
      return false;
    }
    if (!map.putIfAbsent(engine, router)) {
      // Same block stored again: one more reference, never a second view entry.
      src.extraRefs.addTo(engine, 1);
      return true;
    }
    held++;
    if (table.set(router, src.slot)) {
      src.blocks++;
    } else {
      src.routerDups.addTo(router, 1);
    }
    return true;
  }

  private void removed(Source src, BlockRemoved e) {
    if (!KvEvent.isDeviceTier(e.medium())) {
      count(src, DropReason.LOWER_TIER, 1);
      return;
    }
    if (e.groupIdx() != null && src.ignoredGroups.contains(e.groupIdx())) {
      count(src, DropReason.NON_FULL_ATTENTION, 1);
      return;
    }
    long[] hashes = e.blockHashes();
    LongLongMap map = src.engineToRouter;
    long[] routers = scratch(Math.min(hashes.length, BATCH));
    long unknown = 0;
    for (int from = 0; from < hashes.length; from += BATCH) {
      int to = Math.min(hashes.length, from + BATCH);
      long touched = 0;
      for (int b = from; b < to; b++) {
        touched += map.touch(hashes[b]);
      }
      // Phase 1: drop the engine references; collect router hashes whose last one went.
      int clear = 0;
      for (int b = from; b < to; b++) {
        long engine = hashes[b];
        int at = map.find(engine);
        if (at < 0) {
          unknown++;
          continue;
        }
        if (!src.extraRefs.isEmpty() && src.extraRefs.containsKey(engine)) {
          src.extraRefs.addTo(engine, -1);
          continue;
        }
        long router = map.valueAt(at);
        map.removeAt(at);
        held--;
        if (!src.routerDups.isEmpty() && src.routerDups.containsKey(router)) {
          src.routerDups.addTo(router, -1);
          continue;
        }
        routers[clear++] = router;
        touched += table.touch(router);
      }
      sink += touched;
      // Phase 2: clear this source's bit in the shared table.
      for (int i = 0; i < clear; i++) {
        if (table.clear(routers[i], src.slot)) {
          src.blocks--;
        }
      }
    }
    if (unknown > 0) {
      count(src, DropReason.UNKNOWN_BLOCK_REMOVED, unknown);
    }
  }

  private long[] scratch(int n) {
    if (scratch.length < n) {
      scratch = new long[Math.max(n, scratch.length * 2)];
    }
    return scratch;
  }

  private void clearView(Source src) {
    int slot = src.slot;
    held -= src.engineToRouter.size();
    src.engineToRouter.forEach((engine, router) -> table.clear(router, slot));
    src.engineToRouter.clear();
    src.extraRefs.clear();
    src.routerDups.clear();
    src.blocks = 0;
    src.publishedBlocks = 0;
  }

  private void count(Source src, DropReason reason, long n) {
    global(reason, n);
    int i = reason.ordinal();
    src.dropped.lazySet(i, src.dropped.get(i) + n);
  }

  private void global(DropReason reason, long n) {
    int i = reason.ordinal();
    dropped.lazySet(i, dropped.get(i) + n);
  }

  /**
   * Any thread: events (or blocks) of {@code worker}'s current sources dropped for {@code reason};
   * counts of a purged worker are gone with it.
   */
  public long dropped(WorkerId worker, DropReason reason) {
    long n = 0;
    for (Source src : slots.sources) {
      if (src != null && src.id.worker().equals(worker)) {
        n += src.dropped.get(reason.ordinal());
      }
    }
    AtomicLongArray d = workerDrops.get(worker);
    return d == null ? n : n + d.get(reason.ordinal());
  }

  /**
   * Any thread: resets that wiped a non-empty view of {@code worker}'s current sources (refused
   * ones are {@link DropReason#RESET_RATE_LIMITED} drops).
   */
  public long resets(WorkerId worker) {
    long n = 0;
    for (Source src : slots.sources) {
      if (src != null && src.id.worker().equals(worker)) {
        n += src.resets;
      }
    }
    return n;
  }

  /** Any thread: blocks held by all views, as of the last applied batch (at most the cap). */
  public long heldBlocks() {
    return publishedHeld;
  }

  /** Writer: distinct router hashes in the shared table (tests: 0 once every view is empty). */
  int distinctBlocks() {
    return table.size();
  }

  /** Writer: blocks held by all views now (tests: the invariant behind {@link #heldBlocks}). */
  long heldBlocksExact() {
    long n = 0;
    for (Source s : sources.values()) {
      n += s.engineToRouter.size();
    }
    return n;
  }

  // ---------------------------------------------------------------- readers

  /**
   * Any thread: for every source at the page size (or of unknown size), the longest leading run of
   * {@code requestHashes} (hashed at the page size) it holds; sources at another size get 0. One
   * pass over the request, stopping once no source is still in its run; never mutates.
   */
  public MatchResult match(long[] requestHashes) {
    return match(requestHashes, requestHashes.length);
  }

  /** As {@link #match(long[])} over the first {@code count} hashes. */
  public MatchResult match(long[] requestHashes, int count) {
    Slots s = slots;
    int[] hits = new int[s.active.length * 64];
    table.match(requestHashes, count, s.pageActive, hits);
    return new MatchResult(s.bySlot, hits, count);
  }

  /**
   * Any thread: for every source, the longest leading run of the request's chain at that source's
   * block size it holds, in blocks of the page size ({@code runBlocks × blockSize / pageSize},
   * rounded down). A source at a size the request was not hashed at gets 0. Never mutates.
   */
  public MatchResult match(RequestHashes request) {
    Slots s = slots;
    long[] base = request.base();
    int[] hits = new int[s.active.length * 64];
    table.match(base, base.length, s.pageActive, hits);
    for (int g = 0; g < s.otherSizes.length; g++) {
      long[] chain = request.chain(s.otherSizes[g]);
      if (chain == null || chain.length == 0) {
        continue; // hits of these slots stay 0
      }
      long[] mask = s.otherActive[g];
      table.match(chain, chain.length, mask, hits);
      long size = s.otherSizes[g];
      for (int w = 0; w < mask.length; w++) {
        long m = mask[w];
        while (m != 0) {
          int slot = (w << 6) + Long.numberOfTrailingZeros(m);
          hits[slot] = (int) (hits[slot] * size / pageSize);
          m &= m - 1;
        }
      }
    }
    return new MatchResult(s.bySlot, hits, base.length);
  }

  /** Any thread: distinct blocks in a source's view, as of its last applied batch. */
  public long blocks(SourceId id) {
    for (Source src : slots.sources) {
      if (src != null && src.id.equals(id)) {
        return src.publishedBlocks;
      }
    }
    return 0;
  }

  /** Any thread: counters and per-source state. */
  public IndexStats stats() {
    List<IndexStats.SourceStats> list = new ArrayList<>();
    Map<WorkerId, Long> perWorker = new TreeMap<>();
    long entries = 0;
    int degraded = 0;
    for (Source src : slots.sources) {
      if (src == null) {
        continue;
      }
      long blocks = src.publishedBlocks;
      long seq = src.publishedSeq;
      boolean deg = src.degraded;
      int size = src.publishedBlockSize;
      list.add(
          new IndexStats.SourceStats(
              src.id,
              blocks,
              seq == NO_SEQ ? null : seq,
              deg,
              src.batches,
              size == 0 ? null : size,
              src.blockSizeChanges));
      perWorker.merge(src.id.worker(), blocks, Long::sum);
      entries += blocks;
      degraded += deg ? 1 : 0;
    }
    list.sort((a, b) -> a.source().compareTo(b.source()));
    Map<DropReason, Long> drops = new EnumMap<>(DropReason.class);
    for (DropReason r : DropReason.values()) {
      drops.put(r, dropped.get(r.ordinal()));
    }
    return new IndexStats(list, perWorker, entries, degraded, drops);
  }

  /**
   * Writer: heap bytes of the index's hash tables (the memory benchmark reports the full heap
   * delta).
   */
  public long tableBytes() {
    long bytes = table.tableBytes();
    for (Source src : sources.values()) {
      bytes += src.engineToRouter.tableBytes() + src.extraRefs.tableBytes();
      bytes += src.routerDups.tableBytes();
    }
    return bytes;
  }
}
