package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One writer churns the index (growth, tombstones, rebuilds, slot changes) while readers match:
 * blocks that are never removed must be visible in every single match, and no match may report more
 * hits than the request has blocks.
 */
class PrefixIndexConcurrencyTest {

  private static final int P = 16;

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void readersAlwaysSeeStableBlocksWhileTheWriterChurns() throws Exception {
    PrefixIndex index = new PrefixIndex(P);
    BlockHasher hasher = new BlockHasher(P);
    WorkerId stable = WorkerId.of("stable");
    Random r = new Random(1);
    int[] stablePrompt = r.ints(P * 200, 0, 150_000).toArray();
    long[] engine = r.longs(200).toArray();
    index.apply(
        stable, KvEventMessage.NO_SEQ, Events.batch(Events.stored(P, engine, null, stablePrompt)));
    long[] request = hasher.requestHashes(stablePrompt, 0);

    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong matches = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      Future<?> writer =
          pool.submit(
              () -> {
                Random w = new Random(2);
                ArrayDeque<long[]> live = new ArrayDeque<>();
                long next = 1;
                for (int round = 0; round < 4_000; round++) {
                  WorkerId id = WorkerId.of("churn-" + w.nextInt(70));
                  long[] e = new long[32];
                  for (int i = 0; i < e.length; i++) {
                    e[i] = next++;
                  }
                  int[] tokens = w.ints(P * e.length, 0, 150_000).toArray();
                  index.apply(
                      id, KvEventMessage.NO_SEQ, Events.batch(Events.stored(P, e, null, tokens)));
                  live.add(e);
                  if (live.size() > 300) {
                    index.apply(
                        id, KvEventMessage.NO_SEQ, Events.batch(Events.removed(live.poll())));
                  }
                  if (round % 500 == 499) {
                    index.purge(id);
                  }
                }
                stop.set(true);
              });
      Runnable reader =
          () -> {
            while (!stop.get()) {
              MatchResult m = index.match(request);
              assertThat(m.hits(stable)).isEqualTo(200);
              m.bySource().values().forEach(h -> assertThat(h).isBetween(0, 200));
              matches.incrementAndGet();
            }
          };
      Future<?> r1 = pool.submit(reader);
      Future<?> r2 = pool.submit(reader);
      writer.get(90, TimeUnit.SECONDS);
      r1.get(10, TimeUnit.SECONDS);
      r2.get(10, TimeUnit.SECONDS);
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(matches.get()).isGreaterThan(100);
  }
}
