package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * A fleet of mixed block sizes against a naive model: every source hashed at its own size, a size
 * change clearing the view, and hits in page-size blocks, over random stores, removes and purges.
 */
class PrefixIndexBlockSizeProperties {

  private static final int P = 2;
  private static final int[] SIZES = {P, 2 * P, 4 * P};
  private static final int WORKERS = 4;

  /** Per source: its size (0 unknown), engine → router hashes and reference counts. */
  static final class Model {
    final Map<SourceId, Integer> size = new HashMap<>();
    final Map<SourceId, Map<Long, Long>> e2r = new HashMap<>();
    final Map<SourceId, Map<Long, Integer>> refs = new HashMap<>();

    void store(SourceId s, int bs, long[] engine, Long parent, int[] tokens) {
      if (size.getOrDefault(s, 0) != bs) {
        e2r.remove(s);
        refs.remove(s);
        size.put(s, bs);
      }
      Map<Long, Long> m = e2r.computeIfAbsent(s, x -> new HashMap<>());
      Map<Long, Integer> rc = refs.computeIfAbsent(s, x -> new HashMap<>());
      long h;
      if (parent == null) {
        h = 0;
      } else if (m.containsKey(parent)) {
        h = m.get(parent);
      } else {
        return;
      }
      BlockHasher hasher = new BlockHasher(bs);
      for (int b = 0; b < engine.length; b++) {
        h = hasher.hashBlock(h, tokens, b * bs);
        if (m.containsKey(engine[b])) {
          rc.merge(engine[b], 1, Integer::sum);
        } else {
          m.put(engine[b], h);
          rc.put(engine[b], 1);
        }
      }
    }

    void remove(SourceId s, long engine) {
      Map<Long, Integer> rc = refs.getOrDefault(s, Map.of());
      if (!rc.containsKey(engine)) {
        return;
      }
      if (rc.get(engine) > 1) {
        rc.put(engine, rc.get(engine) - 1);
      } else {
        rc.remove(engine);
        e2r.get(s).remove(engine);
      }
    }

    void purge(WorkerId w) {
      for (int rank = 0; rank < 2; rank++) {
        SourceId s = new SourceId(w, rank);
        size.remove(s);
        e2r.remove(s);
        refs.remove(s);
      }
    }

    int hits(SourceId s, int[] prompt) {
      int bs = size.getOrDefault(s, 0);
      if (bs == 0) {
        bs = P;
      }
      long[] chain = new BlockHasher(bs).requestHashes(prompt, 0);
      var held = new HashSet<>(e2r.getOrDefault(s, Map.of()).values());
      int n = 0;
      while (n < chain.length && held.contains(chain[n])) {
        n++;
      }
      return n * bs / P;
    }
  }

  @Property(tries = 200)
  void mixedSizesAgreeWithTheModel(@ForAll @LongRange(min = 0, max = 1L << 40) long seed) {
    Random r = new Random(seed);
    PrefixIndex index = new PrefixIndex(P);
    Model model = new Model();
    RequestHasher hasher = new RequestHasher(P);
    List<int[]> prompts = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      // Lengths are multiples of the largest size, plus a partial tail sometimes.
      prompts.add(r.ints(4 * P * (1 + r.nextInt(4)) + r.nextInt(3), 0, 3).toArray());
    }
    Map<WorkerId, Integer> workerSize = new HashMap<>();
    Map<SourceId, List<Long>> issued = new HashMap<>();
    long nextEngine = 1;
    for (int op = 0; op < 100; op++) {
      WorkerId w = WorkerId.of("w" + r.nextInt(WORKERS));
      int rank = r.nextInt(2);
      SourceId s = new SourceId(w, rank);
      // Mostly a worker keeps its size; now and then it restarts with another backend.
      int bs = workerSize.computeIfAbsent(w, x -> SIZES[r.nextInt(SIZES.length)]);
      if (r.nextInt(15) == 0) {
        bs = SIZES[r.nextInt(SIZES.length)];
        workerSize.put(w, bs);
      }
      List<Long> mine = issued.computeIfAbsent(s, x -> new ArrayList<>());
      int kind = r.nextInt(10);
      KvEvent event;
      if (kind < 6) {
        int[] prompt = prompts.get(r.nextInt(prompts.size()));
        int blocks = prompt.length / bs;
        int start = r.nextInt(blocks);
        int count = 1 + r.nextInt(blocks - start);
        Long parent = start == 0 ? null : mine.isEmpty() ? 99L : mine.get(r.nextInt(mine.size()));
        long[] engine = new long[count];
        for (int i = 0; i < count; i++) {
          engine[i] = nextEngine++;
          mine.add(engine[i]);
        }
        int[] tokens = Arrays.copyOfRange(prompt, start * bs, (start + count) * bs);
        event = Events.stored(bs, engine, parent, tokens);
        model.store(s, bs, engine, parent, tokens);
      } else if (kind < 9 && !mine.isEmpty()) {
        long e = mine.get(r.nextInt(mine.size()));
        event = Events.removed(e);
        model.remove(s, e);
      } else {
        index.purge(w);
        model.purge(w);
        continue;
      }
      index.apply(w, KvEventMessage.NO_SEQ, Events.batch(rank, event));

      int[] prompt = prompts.get(r.nextInt(prompts.size()));
      MatchResult m = index.match(hasher.hash(prompt, 0, index.otherBlockSizes()));
      assertThat(m.requestBlocks()).isEqualTo(prompt.length / P);
      for (int wi = 0; wi < WORKERS; wi++) {
        for (int rk = 0; rk < 2; rk++) {
          SourceId id = new SourceId(WorkerId.of("w" + wi), rk);
          assertThat(m.hits(id)).as("%s after op %d", id, op).isEqualTo(model.hits(id, prompt));
        }
      }
    }
    assertThat(index.stats().dropped(DropReason.BLOCK_SIZE_MISMATCH)).isZero();
  }
}
