package io.infera.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.infera.operator.api.v1alpha1.Conditions;
import io.infera.operator.api.v1alpha1.InferaDeploymentStatus;
import io.infera.operator.api.v1alpha1.Phase;
import io.infera.operator.api.v1alpha1.PoolRole;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** One aggregator from observations to status: phases, conditions, transition times. */
class StatusAggregatorTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00.123Z");
  private static final Instant T1 = Instant.parse("2026-01-01T10:05:00Z");

  static WorkloadState done(String name, int n) {
    return new WorkloadState(name, n, n, n, n, true, null);
  }

  static WorkloadState none(String name, int n) {
    return new WorkloadState(name, n, 0, 0, 0, true, null);
  }

  static Observation obs(
      long gen,
      Observation.SpecOutcome spec,
      WorkloadState router,
      WorkloadState pool,
      RouterFetch view) {
    return new Observation(
        gen,
        spec,
        router,
        Optional.of(done("d-nats", 1)),
        List.of(new Observation.Pool("workers", PoolRole.MIXED, pool)),
        view);
  }

  static final RouterFetch UNKNOWN = new RouterFetch.Unknown("no router replica is ready");
  static final Observation.Valid VALID = new Observation.Valid();

  record Case(
      String name,
      Observation o,
      Phase phase,
      String ready,
      String readyReason,
      String progressing,
      String degraded,
      String degradedReason) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> phases() {
    return Stream.of(
        new Case(
            "nothing ready",
            obs(1, VALID, none("d-router", 2), none("d-workers", 3), UNKNOWN),
            Phase.PENDING,
            "False",
            Conditions.REASON_WAITING,
            "True",
            "False",
            Conditions.REASON_AS_EXPECTED),
        new Case(
            "routers ready, workers coming",
            obs(
                1,
                VALID,
                done("d-router", 2),
                new WorkloadState("d-workers", 3, 3, 3, 1, true, null),
                UNKNOWN),
            Phase.PROGRESSING,
            "False",
            Conditions.REASON_ROLLING_OUT,
            "True",
            "False",
            Conditions.REASON_AS_EXPECTED),
        new Case(
            "old pods still running",
            obs(
                1,
                VALID,
                done("d-router", 2),
                new WorkloadState("d-workers", 3, 4, 3, 3, true, null),
                UNKNOWN),
            Phase.PROGRESSING,
            "False",
            Conditions.REASON_ROLLING_OUT,
            "True",
            "False",
            Conditions.REASON_AS_EXPECTED),
        new Case(
            "controller has not seen the new generation",
            obs(
                2,
                VALID,
                done("d-router", 2),
                new WorkloadState("d-workers", 3, 3, 3, 3, false, null),
                UNKNOWN),
            Phase.PROGRESSING,
            "False",
            Conditions.REASON_ROLLING_OUT,
            "True",
            "False",
            Conditions.REASON_AS_EXPECTED),
        new Case(
            "all rolled out",
            obs(1, VALID, done("d-router", 2), done("d-workers", 3), UNKNOWN),
            Phase.READY,
            "True",
            Conditions.REASON_ALL_READY,
            "False",
            "False",
            Conditions.REASON_AS_EXPECTED),
        new Case(
            "a stalled rollout",
            obs(
                1,
                VALID,
                done("d-router", 2),
                new WorkloadState(
                    "d-workers", 3, 3, 1, 1, true, "d-workers: progress deadline exceeded"),
                UNKNOWN),
            Phase.DEGRADED,
            "False",
            Conditions.REASON_ROLLOUT_STALLED,
            "False",
            "True",
            Conditions.REASON_ROLLOUT_STALLED),
        new Case(
            "an invalid spec",
            obs(
                4,
                new Observation.Invalid(
                    "InvalidSpec", "spec.pools[0].args: pool 'workers' sets --block-size"),
                done("d-router", 2),
                done("d-workers", 3),
                UNKNOWN),
            Phase.DEGRADED,
            "False",
            "InvalidSpec",
            "False",
            "True",
            "InvalidSpec"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("phases")
  void phaseAndConditions(Case c) {
    InferaDeploymentStatus s = StatusAggregator.aggregate(null, c.o(), T0);
    assertThat(s.getPhase()).isEqualTo(c.phase());
    assertThat(s.getObservedGeneration()).isEqualTo(c.o().generation());
    assertThat(s.getConditions())
        .extracting(Condition::getType)
        .containsExactly(
            "Ready", "Progressing", "Degraded", "EventsFlowing", "IndexAccurate", "RenderParity");
    assertThat(s.getConditions())
        .allSatisfy(
            x -> {
              assertThat(x.getObservedGeneration()).isEqualTo(c.o().generation());
              assertThat(x.getLastTransitionTime()).isEqualTo("2026-01-01T10:00:00Z");
              assertThat(x.getReason()).matches("[A-Z][A-Za-z]*");
              assertThat(x.getMessage()).isNotBlank();
            });
    assertThat(cond(s, Conditions.READY).getStatus()).isEqualTo(c.ready());
    assertThat(cond(s, Conditions.READY).getReason()).isEqualTo(c.readyReason());
    assertThat(cond(s, Conditions.PROGRESSING).getStatus()).isEqualTo(c.progressing());
    assertThat(cond(s, Conditions.DEGRADED).getStatus()).isEqualTo(c.degraded());
    assertThat(cond(s, Conditions.DEGRADED).getReason()).isEqualTo(c.degradedReason());
  }

  @Test
  void theInvalidSpecMessageIsTheDegradedMessage() {
    String msg = "spec.pools[0].args: pool 'workers': spec.pools[0].args[2] sets --block-size 32";
    InferaDeploymentStatus s =
        StatusAggregator.aggregate(
            null,
            obs(
                2,
                new Observation.Invalid("InvalidSpec", msg),
                done("d-router", 2),
                done("d-workers", 3),
                UNKNOWN),
            T0);
    assertThat(cond(s, Conditions.DEGRADED).getMessage()).isEqualTo(msg);
  }

  @Test
  void summariesAndPools() {
    InferaDeploymentStatus s =
        StatusAggregator.aggregate(
            null,
            obs(
                1,
                VALID,
                new WorkloadState("d-router", 2, 2, 2, 1, true, null),
                new WorkloadState("d-workers", 3, 3, 3, 2, true, null),
                UNKNOWN),
            T0);
    assertThat(s.getRoutersSummary()).isEqualTo("1/2");
    assertThat(s.getWorkersSummary()).isEqualTo("2/3");
    assertThat(s.getPools())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("workers");
              assertThat(p.getRole()).isEqualTo(PoolRole.MIXED);
              assertThat(p.getReplicas()).isEqualTo(3);
              assertThat(p.getReadyReplicas()).isEqualTo(2);
            });
    assertThat(s.getRouter().getReplicas()).isEqualTo(2);
    assertThat(s.getRouter().getReadyReplicas()).isEqualTo(1);
    assertThat(s.getRouter().getWorkers()).isNull();
    assertThat(s.getHitPercent()).isNull();
  }

  @Test
  void transitionTimesAreKeptUnlessTheStatusFlips() {
    Observation pending = obs(1, VALID, none("d-router", 2), none("d-workers", 3), UNKNOWN);
    Observation progressing =
        obs(
            1,
            VALID,
            done("d-router", 2),
            new WorkloadState("d-workers", 3, 3, 3, 1, true, null),
            UNKNOWN);
    Observation ready = obs(2, VALID, done("d-router", 2), done("d-workers", 3), UNKNOWN);

    InferaDeploymentStatus s0 = StatusAggregator.aggregate(null, pending, T0);
    InferaDeploymentStatus s1 = StatusAggregator.aggregate(s0, progressing, T1);
    // Ready stays False (reason changes): the time is kept; Progressing stays True: kept.
    assertThat(cond(s1, Conditions.READY).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:00:00Z");
    assertThat(cond(s1, Conditions.READY).getReason()).isEqualTo(Conditions.REASON_ROLLING_OUT);
    assertThat(cond(s1, Conditions.PROGRESSING).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:00:00Z");

    InferaDeploymentStatus s2 = StatusAggregator.aggregate(s1, ready, T1.plusSeconds(60));
    assertThat(cond(s2, Conditions.READY).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:06:00Z");
    assertThat(cond(s2, Conditions.PROGRESSING).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:06:00Z");
    assertThat(cond(s2, Conditions.DEGRADED).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:00:00Z");
    assertThat(cond(s2, Conditions.DEGRADED).getObservedGeneration()).isEqualTo(2L);
  }

  @Test
  void anUnchangedObservationGivesTheSameStatus() {
    RouterFetch view = new RouterFetch.Known(new RouterView(true, 3, 100, 0.04, 0.3333, 3, 0));
    Observation o = obs(1, VALID, done("d-router", 2), done("d-workers", 3), view);
    InferaDeploymentStatus s0 = StatusAggregator.aggregate(null, o, T0);
    InferaDeploymentStatus s1 = StatusAggregator.aggregate(s0, o, T1);
    assertThat(StatusAggregator.same(s0, s1)).isTrue();
    // Jitter below the rounding changes nothing either.
    Observation jitter =
        obs(
            1,
            VALID,
            done("d-router", 2),
            done("d-workers", 3),
            new RouterFetch.Known(new RouterView(true, 3, 100, 0.041, 0.33334, 3, 0)));
    assertThat(StatusAggregator.same(s0, StatusAggregator.aggregate(s0, jitter, T1))).isTrue();
    // A real change does.
    Observation more =
        obs(
            1,
            VALID,
            done("d-router", 2),
            done("d-workers", 3),
            new RouterFetch.Known(new RouterView(true, 3, 101, 0.04, 0.3333, 3, 0)));
    assertThat(StatusAggregator.same(s0, StatusAggregator.aggregate(s0, more, T1))).isFalse();
  }

  @Test
  void routerViewFields() {
    RouterFetch view = new RouterFetch.Known(new RouterView(true, 3, 4200, 0.2549, 0.45678, 3, 0));
    InferaDeploymentStatus s =
        StatusAggregator.aggregate(
            null, obs(1, VALID, done("d-router", 2), done("d-workers", 3), view), T0);
    assertThat(s.getRouter().getWorkers()).isEqualTo(3);
    assertThat(s.getRouter().getIndexedBlocks()).isEqualTo(4200L);
    assertThat(s.getRouter().getEventLagSeconds()).isEqualTo(0.3);
    assertThat(s.getRouter().getHitRatio()).isEqualTo(0.457);
    assertThat(s.getHitPercent()).isEqualTo("45.7%");
  }

  record Flow(String name, RouterFetch view, String status, String reason) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Flow> eventsFlowing() {
    return Stream.of(
        new Flow(
            "unknown",
            new RouterFetch.Unknown("router status timed out after 2000 ms"),
            "Unknown",
            Conditions.REASON_ROUTER_STATUS_UNAVAILABLE),
        new Flow("no workers", known(0, 0, 0, null), "False", Conditions.REASON_NO_WORKERS),
        new Flow(
            "workers, no events", known(3, 0, 0, null), "False", Conditions.REASON_NO_KV_EVENTS),
        new Flow("a gap", known(3, 3, 1, 0.1), "False", Conditions.REASON_SOURCES_DEGRADED),
        new Flow("lagging", known(3, 3, 0, 31.0), "False", Conditions.REASON_EVENT_LAG),
        new Flow("at the limit", known(3, 3, 0, 30.0), "True", Conditions.REASON_EVENTS_FLOWING),
        new Flow("flowing", known(3, 3, 0, 0.01), "True", Conditions.REASON_EVENTS_FLOWING),
        new Flow(
            "flowing, block size forced",
            overridden(List.of("w1 (64, expected 16)")),
            "True",
            Conditions.REASON_BLOCK_SIZE_OVERRIDDEN),
        new Flow(
            "flowing, no lag reported",
            known(3, 3, 0, null),
            "True",
            Conditions.REASON_EVENTS_FLOWING));
  }

  static RouterFetch overridden(List<String> workers) {
    return new RouterFetch.Known(new RouterView(true, 3, 10, 0.1, null, 3, 0, workers));
  }

  @Test
  void aForcedBlockSizeNamesTheWorkersAndYieldsToRealProblems() {
    InferaDeploymentStatus s =
        StatusAggregator.aggregate(
            null,
            obs(
                1,
                VALID,
                done("d-router", 2),
                done("d-workers", 3),
                overridden(List.of("w1 (64, expected 16)", "w2 (128, expected 16)"))),
            T0);
    Condition c = cond(s, Conditions.EVENTS_FLOWING);
    assertThat(c.getMessage()).contains("w1 (64, expected 16), w2 (128, expected 16)");
    RouterFetch gapAndForced =
        new RouterFetch.Known(new RouterView(true, 3, 10, 0.1, null, 3, 1, List.of("w1 (64)")));
    InferaDeploymentStatus g =
        StatusAggregator.aggregate(
            null, obs(1, VALID, done("d-router", 2), done("d-workers", 3), gapAndForced), T0);
    assertThat(cond(g, Conditions.EVENTS_FLOWING).getReason())
        .isEqualTo(Conditions.REASON_SOURCES_DEGRADED);
  }

  static RouterFetch known(int workers, int sources, int degraded, Double lag) {
    return new RouterFetch.Known(new RouterView(true, workers, 10, lag, null, sources, degraded));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("eventsFlowing")
  void eventsFlowingFromTheRoutersView(Flow f) {
    InferaDeploymentStatus s =
        StatusAggregator.aggregate(
            null, obs(1, VALID, done("d-router", 2), done("d-workers", 3), f.view()), T0);
    Condition c = cond(s, Conditions.EVENTS_FLOWING);
    assertThat(c.getStatus()).isEqualTo(f.status());
    assertThat(c.getReason()).isEqualTo(f.reason());
    if (f.view() instanceof RouterFetch.Unknown u) {
      assertThat(c.getMessage()).isEqualTo(u.reason());
    }
    // The router view never changes the phase.
    assertThat(s.getPhase()).isEqualTo(Phase.READY);
  }

  static RouterFetch accuracy(String status, String reason, String message) {
    return new RouterFetch.Known(
        new RouterView(
            true,
            3,
            10,
            0.1,
            null,
            3,
            0,
            List.of(),
            new RouterView.IndexAccurate(status, reason, message)));
  }

  static Stream<Flow> indexAccurate() {
    return Stream.of(
        new Flow(
            "no router answered",
            new RouterFetch.Unknown("router status timed out after 2000 ms"),
            "Unknown",
            Conditions.REASON_ROUTER_STATUS_UNAVAILABLE),
        new Flow("an older router", known(3, 3, 0, 0.1), "Unknown", Conditions.REASON_NOT_MEASURED),
        new Flow("accurate", accuracy("True", "Accurate", "precision 0.990"), "True", "Accurate"),
        new Flow(
            "phantom hits",
            accuracy("False", "PhantomHits", "precision 0.41"),
            "False",
            "PhantomHits"),
        new Flow(
            "missed hits", accuracy("False", "MissedHits", "recall 0.2"), "False", "MissedHits"),
        new Flow(
            "not reported",
            accuracy("Unknown", "NotReported", "40 answers"),
            "Unknown",
            "NotReported"),
        new Flow(
            "a newer router's reason",
            accuracy("False", "SomethingNew", "its own words"),
            "False",
            "SomethingNew"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("indexAccurate")
  void indexAccurateFromTheRoutersView(Flow f) {
    InferaDeploymentStatus s =
        StatusAggregator.aggregate(
            null, obs(1, VALID, done("d-router", 2), done("d-workers", 3), f.view()), T0);
    Condition c = cond(s, Conditions.INDEX_ACCURATE);
    assertThat(c.getStatus()).isEqualTo(f.status());
    assertThat(c.getReason()).isEqualTo(f.reason());
    assertThat(c.getMessage()).isNotBlank();
    assertThat(c.getObservedGeneration()).isEqualTo(1L);
    if (f.reason().equals("SomethingNew")) {
      assertThat(c.getMessage()).isEqualTo("its own words");
    }
    // It never changes the phase, nor the other conditions.
    assertThat(s.getPhase()).isEqualTo(Phase.READY);
    assertThat(cond(s, Conditions.READY).getStatus()).isEqualTo("True");
  }

  private static RouterFetch parity(String status, String reason, List<String> diverged) {
    return new RouterFetch.Known(
        new RouterView(
            true,
            3,
            10,
            0.1,
            null,
            3,
            0,
            List.of(),
            null,
            new RouterView.RenderParity(status, reason, "router words " + diverged, diverged)));
  }

  static Stream<Flow> renderParity() {
    return Stream.of(
        new Flow(
            "no router answered",
            new RouterFetch.Unknown("router status timed out after 2000 ms"),
            "Unknown",
            Conditions.REASON_ROUTER_STATUS_UNAVAILABLE),
        new Flow("an older router", known(3, 3, 0, 0.1), "Unknown", Conditions.REASON_NOT_MEASURED),
        new Flow("all match", parity("True", "Match", List.of()), "True", "Match"),
        new Flow("one diverges", parity("False", "Diverged", List.of("w-1")), "False", "Diverged"),
        new Flow(
            "no /tokenize", parity("Unknown", "Unsupported", List.of()), "Unknown", "Unsupported"),
        new Flow(
            "a newer router's reason",
            parity("False", "SomethingNew", List.of()),
            "False",
            "SomethingNew"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("renderParity")
  void renderParityFromTheRoutersView(Flow f) {
    InferaDeploymentStatus s =
        StatusAggregator.aggregate(
            null, obs(1, VALID, done("d-router", 2), done("d-workers", 3), f.view()), T0);
    Condition c = cond(s, Conditions.RENDER_PARITY);
    assertThat(c.getStatus()).isEqualTo(f.status());
    assertThat(c.getReason()).isEqualTo(f.reason());
    assertThat(c.getMessage()).isNotBlank();
    assertThat(c.getObservedGeneration()).isEqualTo(1L);
    if (f.reason().equals("Diverged")) {
      assertThat(c.getMessage()).contains("w-1").contains("engine tokenization");
    }
    if (f.reason().equals("SomethingNew")) {
      assertThat(c.getMessage()).isEqualTo("router words []");
    }
    assertThat(s.getPhase()).isEqualTo(Phase.READY);
    assertThat(cond(s, Conditions.READY).getStatus()).isEqualTo("True");
  }

  @Test
  void movingWindowNumbersWriteNothingWhileTheConditionHolds() {
    InferaDeploymentStatus a =
        StatusAggregator.aggregate(
            null,
            obs(
                1,
                VALID,
                done("d-router", 2),
                done("d-workers", 3),
                accuracy("True", "Accurate", "precision 0.991, recall 0.950 over 500 answers")),
            T0);
    InferaDeploymentStatus b =
        StatusAggregator.aggregate(
            a,
            obs(
                1,
                VALID,
                done("d-router", 2),
                done("d-workers", 3),
                accuracy("True", "Accurate", "precision 0.987, recall 0.961 over 512 answers")),
            T1);
    assertThat(StatusAggregator.same(a, b)).isTrue();
    InferaDeploymentStatus c =
        StatusAggregator.aggregate(
            b,
            obs(
                1,
                VALID,
                done("d-router", 2),
                done("d-workers", 3),
                accuracy("False", "PhantomHits", "precision 0.4")),
            T1);
    assertThat(cond(c, Conditions.INDEX_ACCURATE).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:05:00Z");
    assertThat(cond(b, Conditions.INDEX_ACCURATE).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:00:00Z");
  }

  private static Condition cond(InferaDeploymentStatus s, String type) {
    Condition c = StatusAggregator.find(s.getConditions(), type);
    assertThat(c).as(type).isNotNull();
    return c;
  }
}
