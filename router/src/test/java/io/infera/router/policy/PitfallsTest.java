package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.MatchResult;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The field pitfalls of docs/routing.md ("Pitfalls") as end-to-end scenarios over the real index,
 * tracker and policy: each pick books its worker, the "engine" then caches the prompt and reports
 * it through a BlockStored event, and the request completes before the next one starts.
 */
class PitfallsTest {

  private static final int P = 16;

  /** A miniature fleet: index + tracker + policy, with engines that cache what they serve. */
  static final class Fleet {
    final PrefixIndex index = new PrefixIndex(P);
    final LoadTracker tracker = new LoadTracker();
    final BlockHasher hasher = new BlockHasher(P);
    final RoutingPolicy policy = RoutingPolicy.of(PolicyConfig.defaults());
    final List<Worker> workers;
    final boolean book;
    final Map<WorkerId, Integer> picks = new HashMap<>();
    long hitBlocks;
    long requestBlocks;

    Fleet(int n, boolean book) {
      this.workers = IntStream.range(0, n).mapToObj(i -> Worker.of("w" + i, Role.MIXED)).toList();
      this.book = book;
    }

    WorkerId route(int[] prompt) {
      long[] hashes = hasher.requestHashes(prompt, 0);
      MatchResult m = index.match(hashes);
      Decision d = policy.select(workers, Overlap.of(m), tracker.snapshot(workers));
      int hits = d.winnerScore().hits();
      hitBlocks += hits;
      requestBlocks += hashes.length;
      picks.merge(d.winner(), 1, Integer::sum);
      Booking b = book ? tracker.book(d.winner(), hashes, hashes.length - hits) : null;
      // The engine computes and caches the prompt (engine hash = router hash is fine here).
      if (hashes.length > 0) {
        int[] tokens = java.util.Arrays.copyOf(prompt, hashes.length * P);
        KvEvent.BlockStored stored =
            new KvEvent.BlockStored(hashes, null, tokens, P, null, null, null, null, null, null);
        index.apply(d.winner(), KvEventMessage.NO_SEQ, new EventBatch(0, List.of(stored), 0, 0));
      }
      if (b != null) {
        b.close(); // turn-by-turn: done before the next request
      }
      return d.winner();
    }
  }

  /** 40 chats sharing a 4-block system prompt, 6 turns each, strictly one request at a time. */
  private static Fleet chat(boolean book) {
    Fleet fleet = new Fleet(4, book);
    Random r = new Random(3);
    int[] system = r.ints(4 * P, 0, 100_000).toArray();
    List<List<Integer>> histories = new ArrayList<>();
    for (int c = 0; c < 40; c++) {
      List<Integer> h = new ArrayList<>();
      for (int t : system) {
        h.add(t);
      }
      histories.add(h);
    }
    for (int turn = 0; turn < 6; turn++) {
      for (List<Integer> h : histories) {
        r.ints(2 * P, 0, 100_000).forEach(h::add); // the user's new message
        fleet.route(h.stream().mapToInt(Integer::intValue).toArray());
        r.ints(P, 0, 100_000).forEach(h::add); // the assistant's answer
      }
    }
    return fleet;
  }

  @Test
  void turnByTurnChatSpreadsOverIdenticalWorkersAndStillHitsItsHistory() {
    Fleet fleet = chat(true);
    int total = 240;
    assertThat(fleet.picks).hasSize(4);
    fleet.picks.values().forEach(n -> assertThat(n).isGreaterThanOrEqualTo(total / 10));
    // Conversations still find their history: most prompt blocks are cache hits.
    assertThat((double) fleet.hitBlocks / fleet.requestBlocks).isGreaterThan(0.6);
  }

  @Test
  void withoutTheRecentChargeTheSameTrafficPinsToOneWorker() {
    // The control that shows why recent_blocks exists: in-flight load is 0 at every pick.
    Fleet fleet = chat(false);
    assertThat(fleet.picks).hasSize(1);
  }

  @Test
  void promptsShorterThanABlockSpreadByLoad() {
    Fleet fleet = new Fleet(4, true);
    for (int i = 0; i < 100; i++) {
      fleet.route(new int[] {1, 2, 3});
    }
    assertThat(fleet.picks).hasSize(4);
    fleet.picks.values().forEach(n -> assertThat(n).isBetween(20, 30));
    assertThat(fleet.requestBlocks).isZero();
  }
}
