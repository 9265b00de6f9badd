package io.infera.router.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The benchmark fleet: 64 workers holding ~1,000,000 (block, worker) entries of 16-token blocks,
 * and a 2,000-block prompt that worker {@code w} caches the first {@code (w+1)·2000/64} blocks of
 * (so the longest holder has all 2,000 and a match walks the whole prompt).
 *
 * <p>The rest is filler: chains of 256 blocks, either unique per worker ({@code shared = false},
 * the worst case for memory: every entry is a distinct block) or each stored on 4 workers ({@code
 * shared = true}: common system prompts and documents).
 */
public final class BenchIndex {

  public static final int PAGE = 16;
  public static final int WORKERS = 64;
  public static final int PROMPT_BLOCKS = 2000;
  public static final int CHAIN = 256;

  // The router's limits: the caps and reset checks are on the measured path.
  public final PrefixIndex index = new PrefixIndex(PAGE, IndexLimits.defaults(), System::nanoTime);
  public final long[] prompt;
  public final int[] promptTokens;
  public final List<WorkerId> workers = new ArrayList<>();
  private long nextEngine = 1;

  /**
   * An index without a block cap, the reset checks as a router's: for the process-level benches
   * that measure what arrives (a router's default caps the index at 1.8 M blocks).
   */
  public static PrefixIndex uncapped(int pageSize) {
    return new PrefixIndex(
        pageSize,
        new IndexLimits(
            IndexLimits.DEFAULT_MAX_BLOCKS_PER_SOURCE,
            Long.MAX_VALUE,
            Double.POSITIVE_INFINITY,
            IndexLimits.DEFAULT_RESETS_BURST),
        System::nanoTime);
  }

  private BenchIndex(long targetEntries, boolean shared, long seed) {
    Random r = new Random(seed);
    promptTokens = r.ints(PROMPT_BLOCKS * PAGE, 0, 150_000).toArray();
    prompt = new BlockHasher(PAGE).requestHashes(promptTokens, 0);
    for (int w = 0; w < WORKERS; w++) {
      workers.add(WorkerId.of("worker-" + w));
    }
    long entries = 0;
    for (int w = 0; w < WORKERS; w++) {
      int held = (int) Math.round((w + 1) * (double) PROMPT_BLOCKS / WORKERS);
      store(workers.get(w), java.util.Arrays.copyOf(promptTokens, held * PAGE));
      entries += held;
    }
    long fillerChains = (targetEntries - entries) / CHAIN;
    int copies = shared ? 4 : 1;
    for (long c = 0; c < fillerChains; c += copies) {
      int[] tokens = r.ints(CHAIN * PAGE, 0, 150_000).toArray();
      for (int k = 0; k < copies && c + k < fillerChains; k++) {
        store(workers.get((int) ((c + k * 17) % WORKERS)), tokens);
      }
    }
  }

  public static BenchIndex build(long targetEntries, boolean shared, long seed) {
    return new BenchIndex(targetEntries, shared, seed);
  }

  private void store(WorkerId w, int[] tokens) {
    long[] engine = new long[tokens.length / PAGE];
    for (int i = 0; i < engine.length; i++) {
      engine[i] = nextEngine++;
    }
    KvEvent.BlockStored e =
        new KvEvent.BlockStored(engine, null, tokens, PAGE, null, null, null, null, null, null);
    index.apply(w, KvEventMessage.NO_SEQ, new EventBatch(0, List.of(e), 0, 0));
  }
}
