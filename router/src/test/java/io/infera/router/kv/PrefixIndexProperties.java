package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * The index against a deliberately naive reference model, over random sequences of stores (chained,
 * duplicated, colliding), removes, clears and purges.
 */
class PrefixIndexProperties {

  private static final int P = 2;
  private static final int WORKERS = 5;

  /** Obvious implementation of the same semantics, with boxed maps and no cleverness. */
  static final class Reference {
    final Map<SourceId, Map<Long, Long>> engineToRouter = new HashMap<>();
    final Map<SourceId, Map<Long, Integer>> refs = new HashMap<>();
    final BlockHasher hasher = new BlockHasher(P);

    void store(SourceId s, long[] engine, Long parent, int[] tokens) {
      Map<Long, Long> e2r = engineToRouter.computeIfAbsent(s, x -> new HashMap<>());
      Map<Long, Integer> rc = refs.computeIfAbsent(s, x -> new HashMap<>());
      long h;
      if (parent == null) {
        h = 0;
      } else if (e2r.containsKey(parent)) {
        h = e2r.get(parent);
      } else {
        return;
      }
      for (int b = 0; b < engine.length; b++) {
        h = hasher.hashBlock(h, tokens, b * P);
        if (e2r.containsKey(engine[b])) {
          rc.merge(engine[b], 1, Integer::sum);
        } else {
          e2r.put(engine[b], h);
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
        engineToRouter.get(s).remove(engine);
      }
    }

    void clear(SourceId s) {
      engineToRouter.remove(s);
      refs.remove(s);
    }

    int hits(SourceId s, long[] request) {
      var held = new java.util.HashSet<>(engineToRouter.getOrDefault(s, Map.of()).values());
      int n = 0;
      while (n < request.length && held.contains(request[n])) {
        n++;
      }
      return n;
    }
  }

  @Property(tries = 300)
  void indexAgreesWithTheReferenceModel(@ForAll @LongRange(min = 0, max = 1L << 40) long seed) {
    Random r = new Random(seed);
    PrefixIndex index = new PrefixIndex(P);
    Reference ref = new Reference();
    BlockHasher hasher = new BlockHasher(P);
    // A small token alphabet makes different workers store identical blocks.
    List<int[]> prompts = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      prompts.add(r.ints(P * (1 + r.nextInt(6)), 0, 3).toArray());
    }
    Map<SourceId, List<Long>> issued = new HashMap<>();
    long nextEngine = r.nextInt(3); // includes engine hash 0
    for (int op = 0; op < 120; op++) {
      WorkerId w = WorkerId.of("w" + r.nextInt(WORKERS));
      int rank = r.nextInt(2);
      SourceId s = new SourceId(w, rank);
      List<Long> mine = issued.computeIfAbsent(s, x -> new ArrayList<>());
      int kind = r.nextInt(10);
      KvEvent event;
      if (kind < 5) {
        int[] prompt = prompts.get(r.nextInt(prompts.size()));
        int blocks = prompt.length / P;
        int start = r.nextInt(blocks);
        int count = 1 + r.nextInt(blocks - start);
        Long parent;
        if (start == 0) {
          parent = null;
        } else {
          // Usually a real parent (possibly already evicted), sometimes an unknown one.
          parent = mine.isEmpty() || r.nextInt(5) == 0 ? 424242L : mine.get(r.nextInt(mine.size()));
        }
        long[] engine = new long[count];
        for (int i = 0; i < count; i++) {
          // Reuse an engine hash now and then: duplicate stores.
          engine[i] =
              !mine.isEmpty() && r.nextInt(6) == 0
                  ? mine.get(r.nextInt(mine.size()))
                  : nextEngine++;
          mine.add(engine[i]);
        }
        int[] tokens = java.util.Arrays.copyOfRange(prompt, start * P, (start + count) * P);
        // The reference needs the true chain: re-hash the prefix up to start.
        event = Events.stored(P, engine, parent, tokens);
        ref.store(s, engine, parent, tokens);
      } else if (kind < 8 && !mine.isEmpty()) {
        long e = r.nextInt(4) == 0 ? 777_777L : mine.get(r.nextInt(mine.size()));
        event = Events.removed(e);
        ref.remove(s, e);
      } else if (kind < 9) {
        event = Events.cleared();
        ref.clear(s);
      } else {
        index.purge(w);
        ref.clear(new SourceId(w, 0));
        ref.clear(new SourceId(w, 1));
        continue;
      }
      index.apply(w, KvEventMessage.NO_SEQ, Events.batch(rank, event));

      int[] prompt = prompts.get(r.nextInt(prompts.size()));
      long[] request = hasher.requestHashes(prompt, 0);
      MatchResult m = index.match(request);
      for (int wi = 0; wi < WORKERS; wi++) {
        for (int rk = 0; rk < 2; rk++) {
          SourceId id = new SourceId(WorkerId.of("w" + wi), rk);
          assertThat(m.hits(id)).as("%s after op %d", id, op).isEqualTo(ref.hits(id, request));
          long distinct =
              ref.engineToRouter.getOrDefault(id, Map.of()).values().stream().distinct().count();
          assertThat(index.blocks(id)).as("blocks of %s", id).isEqualTo(distinct);
        }
      }
    }
  }
}
