package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The capped, reset-limited index against a naive model of the same rules: a store takes blocks in
 * order until a cap refuses one (another reference to a held block is always taken), a clear of a
 * non-empty view needs a token from its source's bucket. Hits, blocks, held counts and drop counts
 * must agree after every operation, and the caps always hold.
 */
class PrefixIndexLimitsProperties {

  private static final int P = 2;
  private static final int WORKERS = 4;

  /** The rules with boxed maps. */
  static final class Model {
    final long perSource;
    final long total;
    final double perMinute;
    final int burst;
    final Map<SourceId, Map<Long, Long>> e2r = new HashMap<>();
    final Map<SourceId, Map<Long, Integer>> refs = new HashMap<>();
    final Map<SourceId, double[]> buckets = new HashMap<>();
    final BlockHasher hasher = new BlockHasher(P);
    long refused;
    long limited;

    Model(long perSource, long total, double perMinute, int burst) {
      this.perSource = perSource;
      this.total = total;
      this.perMinute = perMinute;
      this.burst = burst;
    }

    long held() {
      return e2r.values().stream().mapToLong(Map::size).sum();
    }

    void touch(SourceId s, long now) {
      buckets.computeIfAbsent(s, x -> new double[] {burst, now});
      e2r.computeIfAbsent(s, x -> new HashMap<>());
      refs.computeIfAbsent(s, x -> new HashMap<>());
    }

    void store(SourceId s, long[] engine, Long parent, int[] tokens) {
      Map<Long, Long> m = e2r.get(s);
      Map<Long, Integer> rc = refs.get(s);
      long h;
      if (parent == null) {
        h = 0;
      } else if (m.containsKey(parent)) {
        h = m.get(parent);
      } else {
        return;
      }
      for (int b = 0; b < engine.length; b++) {
        h = hasher.hashBlock(h, tokens, b * P);
        if (m.containsKey(engine[b])) {
          rc.merge(engine[b], 1, Integer::sum);
        } else if (m.size() >= perSource || held() >= total) {
          refused += engine.length - b;
          return;
        } else {
          m.put(engine[b], h);
          rc.put(engine[b], 1);
        }
      }
    }

    void remove(SourceId s, long engine) {
      Map<Long, Integer> rc = refs.get(s);
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

    void clear(SourceId s, long now) {
      if (e2r.get(s).isEmpty()) {
        return;
      }
      double[] b = buckets.get(s);
      double refill = (now - (long) b[1]) * (perMinute / 60e9);
      b[0] = Math.min(burst, b[0] + Math.max(0, refill));
      b[1] = now;
      if (b[0] < 1) {
        limited++;
        return;
      }
      b[0] -= 1;
      e2r.get(s).clear();
      refs.get(s).clear();
    }

    void purge(WorkerId w) {
      for (SourceId s : List.copyOf(e2r.keySet())) {
        if (s.worker().equals(w)) {
          e2r.remove(s);
          refs.remove(s);
          buckets.remove(s);
        }
      }
    }

    int hits(SourceId s, long[] request) {
      var held = new java.util.HashSet<>(e2r.getOrDefault(s, Map.of()).values());
      int n = 0;
      while (n < request.length && held.contains(request[n])) {
        n++;
      }
      return n;
    }
  }

  @Property(tries = 300)
  void theCappedIndexAgreesWithTheModel(
      @ForAll @LongRange(min = 0, max = 1L << 40) long seed,
      @ForAll @IntRange(min = 1, max = 12) int perSource,
      @ForAll @IntRange(min = 1, max = 30) int total,
      @ForAll @IntRange(min = 1, max = 3) int burst) {
    Random r = new Random(seed);
    long[] clock = {1_000};
    double perMinute = 60; // one token a second
    PrefixIndex index =
        new PrefixIndex(P, new IndexLimits(perSource, total, perMinute, burst), () -> clock[0]);
    Model model = new Model(perSource, total, perMinute, burst);
    BlockHasher hasher = new BlockHasher(P);
    List<int[]> prompts = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      prompts.add(r.ints(P * (1 + r.nextInt(8)), 0, 3).toArray());
    }
    Map<SourceId, List<Long>> issued = new HashMap<>();
    long nextEngine = 1;
    for (int op = 0; op < 150; op++) {
      clock[0] += r.nextInt(4) == 0 ? 1_000_000_000L : r.nextInt(1000);
      WorkerId w = WorkerId.of("w" + r.nextInt(WORKERS));
      SourceId s = new SourceId(w, r.nextInt(2));
      model.touch(s, clock[0]);
      List<Long> mine = issued.computeIfAbsent(s, x -> new ArrayList<>());
      int kind = r.nextInt(12);
      KvEvent event;
      if (kind < 6) {
        int[] prompt = prompts.get(r.nextInt(prompts.size()));
        int blocks = prompt.length / P;
        int start = r.nextInt(blocks);
        int count = 1 + r.nextInt(blocks - start);
        Long parent = start == 0 || mine.isEmpty() ? null : mine.get(r.nextInt(mine.size()));
        if (parent == null) {
          start = 0;
          count = Math.min(count, blocks);
        }
        long[] engine = new long[count];
        for (int i = 0; i < count; i++) {
          engine[i] =
              !mine.isEmpty() && r.nextInt(5) == 0
                  ? mine.get(r.nextInt(mine.size()))
                  : nextEngine++;
          mine.add(engine[i]);
        }
        int[] tokens = java.util.Arrays.copyOfRange(prompt, start * P, (start + count) * P);
        event = Events.stored(P, engine, parent, tokens);
        model.store(s, engine, parent, tokens);
      } else if (kind < 9 && !mine.isEmpty()) {
        long e = mine.get(r.nextInt(mine.size()));
        event = Events.removed(e);
        model.remove(s, e);
      } else if (kind < 11) {
        event = Events.cleared();
        model.clear(s, clock[0]);
      } else {
        index.purge(w);
        model.purge(w);
        continue;
      }
      index.apply(w, KvEventMessage.NO_SEQ, Events.batch(s.dpRank(), event));

      assertThat(index.heldBlocks()).as("op %d", op).isEqualTo(model.held());
      assertThat(index.heldBlocks()).isLessThanOrEqualTo(total);
      IndexStats st = index.stats();
      assertThat(st.dropped(DropReason.SOURCE_FULL) + st.dropped(DropReason.INDEX_FULL))
          .as("refused blocks after op %d", op)
          .isEqualTo(model.refused);
      assertThat(st.dropped(DropReason.RESET_RATE_LIMITED)).isEqualTo(model.limited);
      long[] request = hasher.requestHashes(prompts.get(r.nextInt(prompts.size())), 0);
      MatchResult m = index.match(request);
      for (int wi = 0; wi < WORKERS; wi++) {
        for (int rk = 0; rk < 2; rk++) {
          SourceId id = new SourceId(WorkerId.of("w" + wi), rk);
          assertThat(m.hits(id)).as("%s after op %d", id, op).isEqualTo(model.hits(id, request));
          long distinct = model.e2r.getOrDefault(id, Map.of()).values().stream().distinct().count();
          assertThat(index.blocks(id)).as("blocks of %s", id).isEqualTo(distinct);
          assertThat(model.e2r.getOrDefault(id, Map.of()).size()).isLessThanOrEqualTo(perSource);
        }
      }
    }
  }
}
