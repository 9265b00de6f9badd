package io.infera.sim.kvcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Random admit / computed / append / release / reset sequences over a small vocabulary (so prompts
 * share prefixes, collide and get computed twice), checked after every operation against the
 * listener's replay of the events: the cache the events describe is the manager's cache.
 */
class BlockManagerProperties {

  @Property(tries = 400)
  void theEventStreamMirrorsTheCache(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 4) int blockSize,
      @ForAll @IntRange(min = 1, max = 24) int numBlocks) {
    Random rnd = new Random(seed);
    RecordingListener listener = new RecordingListener(blockSize);
    BlockManager m = new BlockManager(numBlocks, blockSize, seed, listener);
    List<Sequence> live = new ArrayList<>();
    int[][] stems = new int[3][];
    for (int i = 0; i < stems.length; i++) {
      stems[i] = rnd.ints(rnd.nextInt(12), 1, 3).toArray();
    }
    long seqId = 0;

    for (int op = 0; op < 250; op++) {
      int kind = rnd.nextInt(10);
      if (kind < 3 || live.isEmpty()) {
        int[] prompt = prompt(rnd, stems);
        String lora = rnd.nextInt(4) == 0 ? "lora-a" : null;
        int hitBlocks = m.cachedPrefixBlocks(prompt, lora);
        int free = m.freeBlocks();
        int events = listener.events.size();
        long queries = m.prefixQueryTokens();
        Sequence s = m.admit(seqId++, prompt, lora);
        if (s == null) {
          assertThat(m.freeBlocks()).isEqualTo(free);
          assertThat(listener.events).hasSize(events);
          assertThat(m.prefixQueryTokens()).isEqualTo(queries);
        } else {
          assertThat(s.cachedTokens())
              .isEqualTo(Math.min(hitBlocks, (prompt.length - 1) / blockSize) * blockSize);
          live.add(s);
        }
      } else if (kind < 6) {
        Sequence s = live.get(rnd.nextInt(live.size()));
        int upTo = s.computedTokens() + rnd.nextInt(s.length() - s.computedTokens() + 1);
        m.computed(s, upTo);
        assertThat(s.computedTokens()).isEqualTo(upTo);
      } else if (kind < 8) {
        Sequence s = live.get(rnd.nextInt(live.size()));
        int before = s.length();
        boolean ok = m.append(s, 1 + rnd.nextInt(2));
        assertThat(s.length()).isEqualTo(ok ? before + 1 : before);
        if (!ok) {
          assertThat(m.freeBlocks()).isZero();
        }
      } else {
        m.release(live.remove(rnd.nextInt(live.size())));
        if (live.isEmpty() && rnd.nextInt(4) == 0) {
          m.reset();
        }
      }

      m.checkInvariants();
      assertThat(listener.engineHashes()).isEqualTo(m.cachedEngineHashes());
      assertThat(listener.routerHashes()).isEqualTo(m.cachedRouterHashes());
      assertThat(m.usage()).isBetween(0.0, 1.0);
      assertThat(m.freeBlocks()).isBetween(0, numBlocks);
    }

    for (Sequence s : live) {
      m.release(s);
    }
    m.checkInvariants();
    assertThat(m.freeBlocks()).isEqualTo(numBlocks);
    assertThat(m.usage()).isZero();
  }

  /** A stem (or part of one) followed by a short random tail, over tokens {1, 2}. */
  private static int[] prompt(Random rnd, int[][] stems) {
    int[] stem = stems[rnd.nextInt(stems.length)];
    int keep = stem.length == 0 ? 0 : rnd.nextInt(stem.length + 1);
    int tail = 1 + rnd.nextInt(6);
    int[] out = new int[keep + tail];
    System.arraycopy(stem, 0, out, 0, keep);
    for (int i = keep; i < out.length; i++) {
      out[i] = 1 + rnd.nextInt(2);
    }
    return out;
  }
}
