package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyName;
import io.infera.sim.bench.report.RequestResult;
import io.infera.sim.workload.Session;
import io.infera.sim.workload.Turn;
import io.infera.sim.workload.Vocabulary;
import io.infera.sim.workload.Workload;
import io.infera.sim.workload.WorkloadStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The simplest case of a KV-aware router, as a gate in virtual time: on an idle fleet of 8, two
 * requests with the same system prompt and a different question, the second sent long after the
 * first ended, must both land on the worker that caches the prompt, in every trial (a trial is one
 * seed × one prompt length). The per-pick charge of earlier releases failed this up to about 31
 * blocks: the warm worker kept ~0.97 × the first prompt's blocks as a phantom load.
 */
class IdleFleetAffinityGateTest {

  static final FleetSpec FLEET = FleetSpec.of(8, 2048);
  static final List<Integer> PROMPT_BLOCKS = List.of(2, 5, 10, 25, 50, 100, 200);
  static final List<Integer> SEEDS = List.of(1, 2, 3, 4, 5);
  static final int QUESTION_TOKENS = 24; // one full block and a partial one

  /** Two one-turn sessions, 2 s apart, sharing {@code blocks} blocks of system prompt. */
  static Workload twoRequests(int blocks, int seed) {
    Random r = new Random(1000L * seed + blocks);
    int[] system = tokens(r, blocks * FLEET.blockSize());
    List<Session> sessions = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      int[] question = tokens(r, QUESTION_TOKENS);
      sessions.add(
          new Session(
              "s" + i,
              2_000.0 * i,
              system,
              Vocabulary.text(system),
              List.of(new Turn(question, Vocabulary.text(question), 16, 0)),
              "g"));
    }
    List<Session> fixed = List.copyOf(sessions);
    return new Workload() {
      @Override
      public String name() {
        return "idle-two-requests";
      }

      @Override
      public List<Session> sessions() {
        return fixed;
      }

      @Override
      public WorkloadStats stats() {
        return WorkloadStats.of(fixed, system.length);
      }
    };
  }

  private static int[] tokens(Random r, int n) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = Vocabulary.FIRST_ID + r.nextInt(Vocabulary.SIZE);
    }
    return t;
  }

  @Test
  void theSecondRequestLandsOnTheWarmWorkerInEveryTrial() {
    List<String> misses = new ArrayList<>();
    int trials = 0;
    for (int seed : SEEDS) {
      for (int blocks : PROMPT_BLOCKS) {
        trials++;
        List<RequestResult> rs =
            new ArrayList<>(
                new VirtualCluster(FLEET, Arm.policy(PolicyName.KV_AWARE), seed)
                    .run(twoRequests(blocks, seed))
                    .results());
        rs.sort(Comparator.comparing(RequestResult::sessionId));
        assertThat(rs).hasSize(2).noneMatch(RequestResult::error);
        RequestResult first = rs.get(0);
        RequestResult second = rs.get(1);
        boolean warm =
            second.worker().equals(first.worker())
                && second.cachedTokens() >= blocks * FLEET.blockSize();
        if (!warm) {
          misses.add(
              "seed "
                  + seed
                  + " blocks "
                  + blocks
                  + ": first on "
                  + first.worker()
                  + ", second on "
                  + second.worker()
                  + " with "
                  + second.cachedTokens()
                  + " cached tokens");
        } else {
          // The cache is what the affinity buys: the second prefill is shorter.
          assertThat(second.ttftMs())
              .as("seed %d blocks %d", seed, blocks)
              .isLessThan(first.ttftMs());
        }
      }
    }
    assertThat(trials).isEqualTo(SEEDS.size() * PROMPT_BLOCKS.size());
    assertThat(misses).as("trials that missed the warm worker").isEmpty();
  }
}
