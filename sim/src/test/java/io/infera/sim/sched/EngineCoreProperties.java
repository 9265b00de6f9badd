package io.infera.sim.sched;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.sim.kvcache.BlockManager;
import io.infera.sim.kvcache.KvEventListener;
import io.infera.sim.sched.EngineEvent.Finished;
import io.infera.sim.sched.EngineEvent.FirstToken;
import io.infera.sim.sched.EngineEvent.Token;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Random engines (cache size, block size, limits) under random traffic with shared prefixes and
 * cancellations: every request that is not cancelled finishes with all its tokens, in order; a
 * cancelled one is silent afterwards; nothing leaks; the engine never stalls with work queued.
 */
class EngineCoreProperties {

  /** Tracks how many engine hashes the event stream says are cached. */
  private static final class Counting implements KvEventListener {
    final Set<Long> held = new HashSet<>();

    @Override
    public void blockStored(long[] hashes, Long parent, int[] tokens, String lora) {
      for (long h : hashes) {
        assertThat(held.add(h)).as("stored twice").isTrue();
      }
    }

    @Override
    public void blockRemoved(long[] hashes) {
      for (long h : hashes) {
        assertThat(held.remove(h)).as("removed unknown").isTrue();
      }
    }

    @Override
    public void allCleared() {
      held.clear();
    }
  }

  @Property(tries = 300)
  void everyRequestFinishesOrStaysCancelled(@ForAll long seed) {
    Random rnd = new Random(seed);
    int blockSize = 1 + rnd.nextInt(8);
    int numBlocks = 6 + rnd.nextInt(60);
    EngineConfig config =
        new EngineConfig(1 + rnd.nextInt(8), 1 + rnd.nextInt(96), CostModel.defaults());
    Counting listener = new Counting();
    BlockManager blocks = new BlockManager(numBlocks, blockSize, seed, listener);
    EngineCore core = new EngineCore(config, blocks);
    int[][] stems = new int[3][];
    for (int i = 0; i < stems.length; i++) {
      stems[i] = rnd.ints(rnd.nextInt(3 * blockSize * 4), 1, 50).toArray();
    }

    Map<String, SimRequest> submitted = new HashMap<>();
    Map<String, Integer> cancelledAt = new HashMap<>();
    Set<String> finished = new HashSet<>();
    List<EngineEvent> events = new ArrayList<>();
    double now = 0;
    int toSubmit = 20 + rnd.nextInt(20);
    int idleSteps = 0;
    for (int guard = 0; ; guard++) {
      assertThat(guard).as("engine stalled or livelocked").isLessThan(200_000);
      if (toSubmit > 0 && rnd.nextInt(3) == 0) {
        SimRequest r = randomRequest(rnd, stems, "r" + toSubmit, core);
        if (r != null) {
          core.submit(r);
          submitted.put(r.id(), r);
        }
        toSubmit--;
      }
      if (rnd.nextInt(25) == 0) {
        List<String> live = new ArrayList<>(submitted.keySet());
        live.removeAll(finished);
        live.removeAll(cancelledAt.keySet());
        if (!live.isEmpty()) {
          String id = live.get(rnd.nextInt(live.size()));
          assertThat(core.cancel(id)).isTrue();
          cancelledAt.put(id, events.size());
        }
      }
      EngineCore.Step step = core.schedule(now);
      if (step == null) {
        assertThat(core.waiting() + core.running()).as("idle with work queued").isZero();
        if (toSubmit == 0) {
          break;
        }
        idleSteps++;
        now += 1;
        continue;
      }
      assertThat(step.prefillTokens() + step.decodeSeqs())
          .isLessThanOrEqualTo(config.maxNumBatchedTokens());
      assertThat(step.batchSize()).isLessThanOrEqualTo(config.maxNumSeqs());
      now = step.endMs();
      for (EngineEvent e : core.complete(step)) {
        events.add(e);
        if (e instanceof Finished f) {
          assertThat(finished.add(f.requestId())).isTrue();
        }
      }
      assertThat(blocks.usage()).isBetween(0.0, 1.0);
      assertThat(core.running()).isLessThanOrEqualTo(config.maxNumSeqs());
    }

    for (SimRequest r : submitted.values()) {
      List<EngineEvent> mine = events.stream().filter(e -> e.requestId().equals(r.id())).toList();
      Integer cancelIndex = cancelledAt.get(r.id());
      if (cancelIndex != null) {
        List<EngineEvent> after = events.subList(cancelIndex, events.size());
        assertThat(after).noneMatch(e -> e.requestId().equals(r.id()));
        continue;
      }
      assertThat(mine.stream().filter(e -> e instanceof FirstToken)).hasSize(1);
      assertThat(mine.stream().filter(e -> e instanceof Token).map(e -> ((Token) e).index()))
          .containsExactlyElementsOf(IntStream.range(0, r.maxTokens()).boxed().toList());
      Finished f = (Finished) mine.get(mine.size() - 1);
      assertThat(f.completionTokens()).isEqualTo(r.maxTokens());
      assertThat(f.promptTokens()).isEqualTo(r.promptLength());
      assertThat(f.cachedTokens() % blockSize).isZero();
      assertThat(f.cachedTokens()).isBetween(0, r.promptLength() - 1);
    }
    assertThat(core.running()).isZero();
    assertThat(core.waiting()).isZero();
    assertThat(blocks.usage()).isZero();
    assertThat(blocks.liveSequences()).isZero();
    assertThat(listener.held).hasSize(blocks.cachedBlocks());
    assertThat(blocks.prefixHitTokens()).isLessThanOrEqualTo(blocks.prefixQueryTokens());
  }

  private static SimRequest randomRequest(Random rnd, int[][] stems, String id, EngineCore core) {
    int[] stem = stems[rnd.nextInt(stems.length)];
    int keep = rnd.nextInt(stem.length + 1);
    int[] prompt = new int[keep + 1 + rnd.nextInt(20)];
    System.arraycopy(stem, 0, prompt, 0, keep);
    for (int i = keep; i < prompt.length; i++) {
      prompt[i] = 1 + rnd.nextInt(50);
    }
    int maxTokens = 1 + rnd.nextInt(30);
    while (maxTokens > 1 && !core.fits(prompt.length, maxTokens)) {
      maxTokens /= 2;
    }
    return core.fits(prompt.length, maxTokens)
        ? new SimRequest(id, prompt, maxTokens, rnd.nextInt(5) == 0 ? "lora" : null, 0)
        : null;
  }
}
