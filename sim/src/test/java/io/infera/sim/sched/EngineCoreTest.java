package io.infera.sim.sched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.sim.kvcache.BlockManager;
import io.infera.sim.sched.EngineEvent.Finished;
import io.infera.sim.sched.EngineEvent.FirstToken;
import io.infera.sim.sched.EngineEvent.Token;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class EngineCoreTest {

  private static final CostModel COST = CostModel.defaults();

  /** Drives an engine in virtual time: every step starts when the previous one ends. */
  private static final class Driver {
    final EngineCore core;
    final List<EngineEvent> events = new ArrayList<>();
    final List<EngineCore.Step> steps = new ArrayList<>();
    double now;

    Driver(EngineCore core) {
      this.core = core;
    }

    /** Runs one step; false when the engine had nothing to run. */
    boolean step() {
      EngineCore.Step step = core.schedule(now);
      if (step == null) {
        return false;
      }
      steps.add(step);
      now = step.endMs();
      events.addAll(core.complete(step));
      return true;
    }

    void runToIdle(int maxSteps) {
      for (int i = 0; i < maxSteps; i++) {
        if (!step()) {
          return;
        }
      }
      throw new AssertionError("not idle after " + maxSteps + " steps");
    }

    <T extends EngineEvent> List<T> of(Class<T> type, String requestId) {
      return events.stream()
          .filter(type::isInstance)
          .map(type::cast)
          .filter(e -> e.requestId().equals(requestId))
          .toList();
    }

    Finished finished(String requestId) {
      List<Finished> f = of(Finished.class, requestId);
      assertThat(f).as("Finished of " + requestId).hasSize(1);
      return f.get(0);
    }
  }

  private static EngineCore engine(int numBlocks, int blockSize, EngineConfig config) {
    return new EngineCore(config, new BlockManager(numBlocks, blockSize, 0, null));
  }

  private static int[] tokens(int from, int n) {
    return IntStream.range(from, from + n).toArray();
  }

  private static SimRequest request(String id, int[] prompt, int maxTokens) {
    return new SimRequest(id, prompt, maxTokens, null, 0);
  }

  @Test
  void aLoneRequestsTtftIsItsPrefillStepAndDecodeStepsFollow() {
    Driver d = new Driver(engine(1000, 16, EngineConfig.defaults()));
    d.core.submit(request("a", tokens(1, 100), 3));

    d.runToIdle(10);

    assertThat(d.steps).hasSize(3);
    EngineCore.Step prefill = d.steps.get(0);
    assertThat(prefill.prefillTokens()).isEqualTo(100);
    assertThat(prefill.decodeSeqs()).isZero();
    assertThat(prefill.batchSize()).isEqualTo(1);
    assertThat(prefill.durationMs()).isEqualTo(COST.stepMs(100, 0, 100));
    assertThat(d.of(FirstToken.class, "a").get(0).atMs()).isEqualTo(prefill.durationMs());
    assertThat(d.steps.get(1).durationMs()).isEqualTo(COST.stepMs(0, 1, 101));
    assertThat(d.steps.get(2).durationMs()).isEqualTo(COST.stepMs(0, 1, 102));

    List<Token> tokens = d.of(Token.class, "a");
    assertThat(tokens).extracting(Token::index).containsExactly(0, 1, 2);
    assertThat(tokens.get(0).tokenId()).isEqualTo(d.of(FirstToken.class, "a").get(0).tokenId());
    assertThat(tokens)
        .extracting(Token::tokenId)
        .containsExactly(
            EngineCore.generatedToken("a", 0),
            EngineCore.generatedToken("a", 1),
            EngineCore.generatedToken("a", 2));
    assertThat(d.finished("a")).isEqualTo(new Finished("a", 100, 0, 3, "length", d.now));
    assertThat(d.events.get(d.events.size() - 1)).isInstanceOf(Finished.class);
    assertThat(d.core.running()).isZero();
    assertThat(d.core.waiting()).isZero();
    assertThat(d.core.blocks().usage()).isZero();
    assertThat(d.core.stepsRun()).isEqualTo(3);
  }

  @Test
  void aRepeatedPromptHitsTheCacheAndGetsItsFirstTokenSooner() {
    Driver d = new Driver(engine(1000, 16, EngineConfig.defaults()));
    int[] prompt = tokens(1, 1000);
    d.core.submit(request("a", prompt, 4));
    d.runToIdle(20);
    double ttftA = d.of(FirstToken.class, "a").get(0).atMs() - 0;

    double sentB = d.now;
    d.core.submit(request("b", prompt, 4));
    d.runToIdle(20);
    double ttftB = d.of(FirstToken.class, "b").get(0).atMs() - sentB;

    // (1000 - 1) / 16 = 62 blocks hit; the 8 remaining prompt tokens are computed.
    assertThat(d.finished("b").cachedTokens()).isEqualTo(992);
    assertThat(d.finished("a").cachedTokens()).isZero();
    assertThat(ttftB).isCloseTo(COST.stepMs(8, 0, 1000), within());
    assertThat(ttftB).isLessThan(ttftA - 15);
    EngineCore.Stats stats = d.core.stats();
    assertThat(stats.prefixQueryTokens()).isEqualTo(2000);
    assertThat(stats.prefixHitTokens()).isEqualTo(992);
    assertThat(stats.promptTokens()).isEqualTo(2000);
    assertThat(stats.generationTokens()).isEqualTo(8);
    assertThat(stats.finishedRequests()).isEqualTo(2);
  }

  @Test
  void aFollowUpTurnIncludingTheAnswerHitsTheGeneratedBlocks() {
    Driver d = new Driver(engine(1000, 4, EngineConfig.defaults()));
    int[] prompt = tokens(1, 10);
    d.core.submit(request("t1", prompt, 9));
    d.runToIdle(20);
    int[] answer = d.of(Token.class, "t1").stream().mapToInt(Token::tokenId).toArray();

    int[] turn2 = IntStream.concat(IntStream.of(prompt), IntStream.of(answer)).toArray();
    turn2 = IntStream.concat(IntStream.of(turn2), IntStream.of(tokens(500, 3))).toArray();
    d.core.submit(request("t2", turn2, 1));
    d.runToIdle(5);

    // KV exists for prompt + all answer tokens but the last: 18 tokens, 4 full blocks.
    assertThat(d.finished("t2").cachedTokens()).isEqualTo(16);
  }

  @Test
  void stepsRespectTheTokenBudgetAndTheSequenceCap() {
    Driver d = new Driver(engine(1000, 16, new EngineConfig(3, 64, COST)));
    for (int i = 0; i < 7; i++) {
      d.core.submit(request("r" + i, tokens(1000 * i + 1, 40), 5));
    }
    int maxRunning = 0;
    for (int i = 0; i < 200 && d.step(); i++) {
      EngineCore.Step s = d.steps.get(d.steps.size() - 1);
      assertThat(s.prefillTokens() + s.decodeSeqs()).isLessThanOrEqualTo(64);
      assertThat(s.batchSize()).isLessThanOrEqualTo(3);
      assertThat(d.core.running()).isLessThanOrEqualTo(3);
      maxRunning = Math.max(maxRunning, d.core.running());
    }
    assertThat(maxRunning).isEqualTo(3);
    assertThat(d.steps.get(0).prefillTokens()).isEqualTo(64);
    for (int i = 0; i < 7; i++) {
      assertThat(d.finished("r" + i).completionTokens()).isEqualTo(5);
    }
    // FCFS: first tokens come in submission order.
    List<String> firsts =
        d.events.stream().filter(e -> e instanceof FirstToken).map(EngineEvent::requestId).toList();
    assertThat(firsts).containsExactly("r0", "r1", "r2", "r3", "r4", "r5", "r6");
  }

  @Test
  void chunkedPrefillSplitsALongPromptAcrossSteps() {
    Driver d = new Driver(engine(100, 16, new EngineConfig(8, 64, COST)));
    d.core.submit(request("long", tokens(1, 200), 2));

    for (int i = 0; i < 3; i++) {
      d.step();
      assertThat(d.events).isEmpty();
    }
    d.step();

    assertThat(d.steps).extracting(EngineCore.Step::prefillTokens).containsExactly(64, 64, 64, 8);
    assertThat(d.steps.get(1).durationMs()).isEqualTo(COST.stepMs(64, 0, 128));
    assertThat(d.of(FirstToken.class, "long")).hasSize(1);
    // Full blocks became cached chunk by chunk: 12 after 192 tokens, still 12 after 200.
    assertThat(d.core.blocks().cachedBlocks()).isEqualTo(12);
  }

  @Test
  void decodesGoFirstAndAPrefillChunkTakesTheRestOfTheBudget() {
    Driver d = new Driver(engine(100, 16, new EngineConfig(8, 64, COST)));
    d.core.submit(request("short", tokens(1, 10), 50));
    d.step();
    d.core.submit(request("long", tokens(500, 300), 2));

    d.step();

    EngineCore.Step mixed = d.steps.get(1);
    assertThat(mixed.decodeSeqs()).isEqualTo(1);
    assertThat(mixed.prefillTokens()).isEqualTo(63);
    assertThat(mixed.batchSize()).isEqualTo(2);
    assertThat(mixed.durationMs()).isEqualTo(COST.stepMs(63, 1, 11 + 63));
  }

  @Test
  void cancelReleasesTheRequestAndSilencesItsInFlightStep() {
    Driver d = new Driver(engine(100, 16, new EngineConfig(8, 64, COST)));
    d.core.submit(request("a", tokens(1, 200), 5));
    d.core.submit(request("queued", tokens(1000, 300), 5));
    d.step();
    assertThat(d.core.blocks().usage()).isGreaterThan(0);

    EngineCore.Step inFlight = d.core.schedule(d.now);
    assertThat(d.core.cancel("a")).isTrue();
    assertThat(d.core.cancel("queued")).isTrue();
    List<EngineEvent> events = d.core.complete(inFlight);

    assertThat(events).isEmpty();
    assertThat(d.core.cancel("a")).isFalse();
    assertThat(d.core.cancel("never")).isFalse();
    assertThat(d.core.running()).isZero();
    assertThat(d.core.waiting()).isZero();
    assertThat(d.core.blocks().usage()).isZero();
    assertThat(d.core.blocks().freeBlocks()).isEqualTo(100);
    assertThat(d.core.schedule(d.now)).isNull();
    // The id is free again.
    d.core.submit(request("a", tokens(1, 200), 1));
    d.runToIdle(10);
    assertThat(d.finished("a").cachedTokens()).isEqualTo(64);
  }

  @Test
  void abortReportsAFinishedEvent() {
    Driver d = new Driver(engine(100, 16, EngineConfig.defaults()));
    d.core.submit(request("a", tokens(1, 40), 10));
    d.step();
    d.step();

    Finished f = d.core.abort("a", 123.0);

    assertThat(f).isEqualTo(new Finished("a", 40, 0, 2, "abort", 123.0));
    assertThat(d.core.abort("a", 124.0)).isNull();
    assertThat(d.core.running()).isZero();
  }

  @Test
  void preemptionUnderBlockPressureStillCompletesEveryRequest() {
    // 24 blocks of 4 tokens; each request needs up to 8 blocks, six of them run at once.
    Driver d = new Driver(engine(24, 4, new EngineConfig(16, 256, COST)));
    int n = 6;
    for (int i = 0; i < n; i++) {
      d.core.submit(request("p" + i, tokens(100 * i + 1, 12), 20));
    }

    d.runToIdle(2000);

    assertThat(d.core.preemptions()).isPositive();
    for (int i = 0; i < n; i++) {
      String id = "p" + i;
      Finished f = d.finished(id);
      assertThat(f.promptTokens()).isEqualTo(12);
      assertThat(f.completionTokens()).isEqualTo(20);
      assertThat(f.finishReason()).isEqualTo("length");
      // Recompute never re-emits: each index exactly once, in order.
      assertThat(d.of(Token.class, id))
          .extracting(Token::index)
          .containsExactlyElementsOf(IntStream.range(0, 20).boxed().toList());
      assertThat(d.of(FirstToken.class, id)).hasSize(1);
    }
    assertThat(d.core.running()).isZero();
    assertThat(d.core.waiting()).isZero();
    assertThat(d.core.blocks().usage()).isZero();
    assertThat(d.core.stats().preemptions()).isEqualTo(d.core.preemptions());
    assertThat(d.core.generationTokensTotal()).isEqualTo(n * 20L);
  }

  @Test
  void aRequestThatCanNeverFitIsRejectedAtSubmit() {
    EngineCore core = engine(4, 4, EngineConfig.defaults());
    assertThat(core.fits(10, 7)).isTrue();
    assertThat(core.fits(10, 8)).isFalse();
    assertThatThrownBy(() -> core.submit(request("big", tokens(1, 10), 8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("big");
    core.submit(request("ok", tokens(1, 10), 7));
    assertThatThrownBy(() -> core.submit(request("ok", tokens(1, 3), 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate");
    assertThat(core.waiting()).isEqualTo(1);
  }

  @Test
  void headOfLineBlockingKeepsFcfsOrder() {
    // 10 blocks of 4: "big" needs 8 blocks while "first" holds 3, so "small" (which would fit)
    // waits behind it.
    Driver d = new Driver(engine(10, 4, EngineConfig.defaults()));
    d.core.submit(request("first", tokens(1, 12), 3));
    d.step();
    d.core.submit(request("big", tokens(100, 32), 1));
    d.core.submit(request("small", tokens(200, 4), 1));

    d.step();

    assertThat(d.core.running()).isEqualTo(1);
    assertThat(d.core.waiting()).isEqualTo(2);
    d.runToIdle(50);
    List<String> order =
        d.events.stream().filter(e -> e instanceof Finished).map(EngineEvent::requestId).toList();
    assertThat(order).containsExactly("first", "big", "small");
  }

  @Test
  void scheduleAndCompleteAlternate() {
    EngineCore core = engine(100, 16, EngineConfig.defaults());
    assertThat(core.schedule(0)).isNull();
    core.submit(request("a", tokens(1, 20), 2));
    EngineCore.Step step = core.schedule(5);
    assertThat(step.startMs()).isEqualTo(5);
    assertThat(core.stepInFlight()).isTrue();
    assertThatThrownBy(() -> core.schedule(6)).isInstanceOf(IllegalStateException.class);
    core.complete(step);
    assertThatThrownBy(() -> core.complete(step)).isInstanceOf(IllegalStateException.class);
    // A clock behind the previous step's end is moved forward to it.
    assertThat(core.schedule(0).startMs()).isEqualTo(step.endMs());
  }

  @Test
  void thePrefixCacheResetsOnlyWhenIdle() {
    Driver d = new Driver(engine(100, 4, EngineConfig.defaults()));
    d.core.submit(request("a", tokens(1, 20), 2));
    d.step();
    assertThat(d.core.resetPrefixCache()).isFalse();
    d.runToIdle(5);
    assertThat(d.core.blocks().cachedBlocks()).isEqualTo(5);

    assertThat(d.core.resetPrefixCache()).isTrue();

    assertThat(d.core.blocks().cachedBlocks()).isZero();
    d.core.submit(request("b", tokens(1, 20), 1));
    d.runToIdle(5);
    assertThat(d.finished("b").cachedTokens()).isZero();
  }

  @Test
  void generatedTokensAreDeterministicAndInRange() {
    Map<Integer, Integer> seen = new HashMap<>();
    for (int i = 0; i < 10_000; i++) {
      int t = EngineCore.generatedToken("req-" + (i % 7), i);
      assertThat(t).isBetween(EngineCore.MIN_GENERATED_TOKEN, EngineCore.MAX_GENERATED_TOKEN - 1);
      seen.merge(t, 1, Integer::sum);
    }
    assertThat(seen.size()).isGreaterThan(9000);
    assertThat(EngineCore.generatedToken("x", 3)).isEqualTo(EngineCore.generatedToken("x", 3));
    assertThat(EngineCore.generatedToken("x", 3)).isNotEqualTo(EngineCore.generatedToken("y", 3));
  }

  @Test
  void defaultCostModelConstants() {
    assertThat(COST.stepMs(0, 0, 0)).isZero();
    assertThat(COST.stepMs(1000, 0, 1000))
        .isCloseTo(4.21e-7 * 1e6 + 1.518e-2 * 1000 + 16.5 + 4.0e-5 * 1000, within());
    assertThat(COST.stepMs(0, 10, 20_000)).isCloseTo(7.0 + 0.8 + 0.2, within());
    assertThat(COST.stepMs(512, 10, 20_000))
        .isCloseTo(4.21e-7 * 512 * 512 + 1.518e-2 * 512 + 16.5 + 0.8 + 0.2, within());
    FittedCostModel slow = FittedCostModel.H100_8B.withDecode(14.0, 4.0e-5, 0.02);
    assertThat(slow.stepMs(0, 1, 0)).isCloseTo(14.02, within());
    assertThatThrownBy(() -> new FittedCostModel(-1, 0, 0, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(EngineConfig.defaults())
        .isEqualTo(new EngineConfig(256, 8192, FittedCostModel.H100_8B));
  }

  private static Offset<Double> within() {
    return Offset.offset(1e-9);
  }
}
