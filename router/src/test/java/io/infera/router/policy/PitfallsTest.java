package io.infera.router.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.LoadModel;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The field pitfalls of docs/routing.md ("Pitfalls") as end-to-end scenarios over the real index,
 * tracker and policy: each pick books its worker and the "engine" then caches the prompt and
 * reports it through a BlockStored event; requests either complete before the next one starts or
 * stay in flight together.
 */
class PitfallsTest {

  private static final int P = 16;

  /** A miniature fleet: index + tracker + policy, with engines that cache what they serve. */
  static final class Fleet {
    final PrefixIndex index = new PrefixIndex(P);
    // Time stands still unless a test moves it: charges leave by signals only.
    final AtomicLong clock = new AtomicLong();
    final LoadTracker tracker = new LoadTracker(LoadModel.DEFAULTS, clock::get);
    final BlockHasher hasher = new BlockHasher(P);
    final RoutingPolicy policy = RoutingPolicy.of(PolicyConfig.defaults());
    final List<Worker> workers;
    final Map<WorkerId, Integer> picks = new HashMap<>();
    long hitBlocks;
    long requestBlocks;
    int picksOnTheLongestPrefix;

    Fleet(int n) {
      this.workers = IntStream.range(0, n).mapToObj(i -> Worker.of("w" + i, Role.MIXED)).toList();
    }

    /** Picks and books a worker; the "engine" caches the prompt at once. */
    Booking book(int[] prompt) {
      long[] hashes = hasher.requestHashes(prompt, 0);
      MatchResult m = index.match(hashes);
      Overlap overlap = Overlap.of(m);
      Decision d = policy.select(workers, overlap, tracker.snapshot(workers));
      int hits = d.winnerScore().hits();
      int best = workers.stream().mapToInt(w -> overlap.hits(w.id())).max().orElse(0);
      if (hits == best) {
        picksOnTheLongestPrefix++;
      }
      hitBlocks += hits;
      requestBlocks += hashes.length;
      picks.merge(d.winner(), 1, Integer::sum);
      Booking b = tracker.book(d.winner(), hashes, hashes.length - hits);
      // The engine computes and caches the prompt (engine hash = router hash is fine here).
      if (hashes.length > 0) {
        int[] tokens = java.util.Arrays.copyOf(prompt, hashes.length * P);
        KvEvent.BlockStored stored =
            new KvEvent.BlockStored(hashes, null, tokens, P, null, null, null, null, null, null);
        index.apply(d.winner(), KvEventMessage.NO_SEQ, new EventBatch(0, List.of(stored), 0, 0));
      }
      return b;
    }

    /** Turn-by-turn: the request is done (first token, then its end) before the next one. */
    WorkerId route(int[] prompt) {
      Booking b = book(prompt);
      b.firstToken();
      b.close();
      return b.worker();
    }
  }

  /** 40 chats sharing a 4-block system prompt, 6 turns each, strictly one request at a time. */
  private static Fleet chat() {
    Fleet fleet = new Fleet(4);
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
  void strictlySequentialChatOnAnIdleFleetAlwaysGoesWhereItsHistoryIs() {
    // Nothing else runs at any pick: the worker with the longest cached prefix has the lowest
    // time to first token, and concentrating the traffic there is right. (Earlier releases
    // charged every pick for ~30 picks after it ended and spread this traffic, cache or not.)
    Fleet fleet = chat();
    assertThat(fleet.picksOnTheLongestPrefix).isEqualTo(240);
    // Every turn finds its whole history: only what is new is computed — the system prompt once,
    // each first message (2 blocks), and each later turn's previous answer and message (3).
    long newBlocks = 4 + 40L * 2 + 200L * 3;
    assertThat(fleet.requestBlocks - fleet.hitBlocks).isEqualTo(newBlocks);
  }

  @Test
  void concurrentChatTurnsSpreadWhilePrefillIsInProgress() {
    // 40 chats' first turns at the same instant (time stands still: nothing has drained, no
    // first token yet): every pick sees the prefill booked before it and the load spreads.
    Fleet fleet = new Fleet(4);
    Random r = new Random(5);
    int[] system = r.ints(4 * P, 0, 100_000).toArray();
    List<Booking> open = new ArrayList<>();
    for (int c = 0; c < 40; c++) {
      int[] prompt = java.util.Arrays.copyOf(system, system.length + 8 * P);
      System.arraycopy(r.ints(8 * P, 0, 100_000).toArray(), 0, prompt, system.length, 8 * P);
      open.add(fleet.book(prompt));
    }
    assertThat(fleet.picks).hasSize(4);
    fleet.picks.values().forEach(n -> assertThat(n).isBetween(7, 13));
    // When their first tokens are in, the prefill charges are gone; decoding load stays.
    open.forEach(Booking::firstToken);
    for (Worker w : fleet.workers) {
      assertThat(fleet.tracker.load(w.id()).recentBlocks()).isZero();
      assertThat(fleet.tracker.load(w.id()).inFlight()).isPositive();
    }
  }

  @Test
  void aBurstDrainsWithTimeWhenNoFirstTokenIsHeard() {
    Fleet fleet = new Fleet(4);
    Random r = new Random(7);
    for (int c = 0; c < 8; c++) {
      fleet.book(r.ints(8 * P, 0, 100_000).toArray());
    }
    // 8 × 8 blocks booked: at the default 3,000 blocks/s, a second is far more than enough.
    fleet.clock.addAndGet(1_000_000_000L);
    for (Worker w : fleet.workers) {
      assertThat(fleet.tracker.load(w.id()).recentBlocks()).isZero();
    }
  }

  @Test
  void promptsShorterThanABlockSpreadByLoad() {
    Fleet fleet = new Fleet(4);
    for (int i = 0; i < 100; i++) {
      fleet.book(new int[] {1, 2, 3}); // all in flight at once
    }
    assertThat(fleet.picks).hasSize(4);
    fleet.picks.values().forEach(n -> assertThat(n).isBetween(20, 30));
    assertThat(fleet.requestBlocks).isZero();
  }
}
