package io.infera.sim.bench.scale;

import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.IndexLimits;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.LongConsumer;

/**
 * One fleet's index for the scale bench: {@code workers} sources holding about {@code entries}
 * (block, worker) entries of 16-token blocks, built through {@link PrefixIndex#apply} as engines'
 * events would build it.
 *
 * <p>A prompt of {@code promptBlocks} blocks is held by {@value #HOLDERS} workers spread over the
 * fleet, holder {@code h} caching its first {@code (h+1)/HOLDERS} (so the longest holder has all of
 * it and a match walks every block); the rest is filler in chains of {@value #CHAIN} blocks spread
 * over every worker, each chain unique ({@code shared = false}: every entry a distinct block, the
 * memory worst case) or stored on 4 workers ({@code shared = true}: common documents).
 */
public final class ScaleIndex {

  public static final int PAGE = 16;
  static final int HOLDERS = 8;
  static final int CHAIN = 256;

  public final PrefixIndex index;
  public final List<WorkerId> workers = new ArrayList<>();
  public final long[] prompt;
  private long nextEngine = 1;
  private long applyNanos;

  private ScaleIndex(
      int workers,
      long entries,
      boolean shared,
      int promptBlocks,
      long seed,
      LongConsumer progress) {
    // Caps above the router's defaults (sized for a 1 GiB pod) so the largest fleets fit.
    index =
        new PrefixIndex(
            PAGE,
            new IndexLimits(
                Math.max(1L << 20, 4 * entries / workers + promptBlocks),
                entries + (1L << 20),
                1_000_000,
                1_000_000),
            System::nanoTime);
    Random r = new Random(seed);
    for (int w = 0; w < workers; w++) {
      this.workers.add(WorkerId.of("worker-" + w));
    }
    int[] promptTokens = r.ints(promptBlocks * PAGE, 0, 150_000).toArray();
    prompt = new BlockHasher(PAGE).requestHashes(promptTokens, 0);
    long stored = 0;
    for (int h = 0; h < HOLDERS; h++) {
      int held = (int) Math.round((h + 1) * (double) promptBlocks / HOLDERS);
      int w = (int) ((long) h * workers / HOLDERS);
      store(this.workers.get(w), Arrays.copyOf(promptTokens, held * PAGE));
      stored += held;
    }
    int copies = shared ? 4 : 1;
    long chains = Math.max(0, (entries - stored) / CHAIN);
    int[] tokens = new int[CHAIN * PAGE];
    for (long c = 0; c < chains; c += copies) {
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = r.nextInt(150_000);
      }
      for (int k = 0; k < copies && c + k < chains; k++) {
        store(this.workers.get((int) ((c + k * 17L) % workers)), tokens);
      }
      if ((c / copies) % 4096 == 0) {
        progress.accept(c * CHAIN);
      }
    }
  }

  /**
   * Builds the index.
   *
   * @param progress told the entries stored so far, now and then
   */
  public static ScaleIndex build(
      int workers,
      long entries,
      boolean shared,
      int promptBlocks,
      long seed,
      LongConsumer progress) {
    return new ScaleIndex(workers, entries, shared, promptBlocks, seed, progress);
  }

  private void store(WorkerId w, int[] tokens) {
    long[] engine = new long[tokens.length / PAGE];
    for (int i = 0; i < engine.length; i++) {
      engine[i] = nextEngine++;
    }
    KvEvent.BlockStored e =
        new KvEvent.BlockStored(engine, null, tokens, PAGE, null, null, null, null, null, null);
    EventBatch batch = new EventBatch(0, List.of(e), 0, 0);
    long t0 = System.nanoTime();
    index.apply(w, KvEventMessage.NO_SEQ, batch);
    applyNanos += System.nanoTime() - t0;
  }

  /** Time spent inside {@link PrefixIndex#apply} while building (not generating the events). */
  public long applyNanos() {
    return applyNanos;
  }
}
