package io.infera.router.parity;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.WorkerId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

class RenderParityTest {

  private static final WorkerId A = WorkerId.of("a");
  private static final WorkerId B = WorkerId.of("b");
  private static final WorkerId C = WorkerId.of("c");

  private static WorkerParity diverged(String engineChat) {
    return ParityCheck.verdict(
        ParityCheckTest.cases("1 2 3", "4"), ParityCheckTest.cases(engineChat, "4"), 1);
  }

  private static WorkerParity match() {
    return ParityCheck.verdict(
        ParityCheckTest.cases("1 2 3", "4"), ParityCheckTest.cases("1 2 3", "4"), 1);
  }

  @Test
  void newWorkersArePendingAndTheConditionSaysNotProbed() {
    RenderParity p = new RenderParity(null);
    assertThat(p.condition().reason()).isEqualTo("NoWorkers");
    p.workers(List.of(A, B));
    assertThat(p.of(A).status()).isEqualTo(ParityStatus.PENDING);
    assertThat(p.condition().status()).isEqualTo("Unknown");
    assertThat(p.condition().reason()).isEqualTo("NotProbed");
    assertThat(p.variants(true)).isEmpty();
  }

  @Test
  void allMatchingIsTrueOneDivergingIsFalseAndNamed() {
    RenderParity p = new RenderParity(null);
    p.workers(List.of(A, B));
    p.record(A, match(), ParitySchedule.Trigger.DISCOVERY);
    p.record(B, match(), ParitySchedule.Trigger.DISCOVERY);
    assertThat(p.condition().status()).isEqualTo("True");
    assertThat(p.condition().reason()).isEqualTo("Match");
    p.record(B, diverged("9 2 3"), ParitySchedule.Trigger.RESTART);
    RenderParity.Condition c = p.condition();
    assertThat(c.status()).isEqualTo("False");
    assertThat(c.reason()).isEqualTo("Diverged");
    assertThat(c.diverged()).containsExactly("b");
    assertThat(c.message())
        .contains("1 of 2 workers")
        .contains("b: ")
        .contains("differs at token 0");
    assertThat(p.variants(true))
        .extracting(RenderParity.Variant::workers)
        .containsExactly(List.of(B));
    assertThat(p.variants(false)).isEmpty(); // a template divergence: text is trusted
  }

  @Test
  void workersThatRenderAlikeFormOneVariant() {
    RenderParity p = new RenderParity(null);
    p.workers(List.of(A, B, C));
    p.record(A, diverged("9 2 3"), ParitySchedule.Trigger.DISCOVERY);
    p.record(B, diverged("9 2 3"), ParitySchedule.Trigger.DISCOVERY);
    p.record(C, diverged("8 8"), ParitySchedule.Trigger.DISCOVERY);
    assertThat(p.variants(true)).hasSize(2);
    assertThat(p.variants(true))
        .extracting(RenderParity.Variant::workers)
        .contains(List.of(A, B), List.of(C));
    assertThat(RenderParity.workersOf(p.variants(true))).containsExactlyInAnyOrder(A, B, C);
  }

  @Test
  void aWorkerThatLeftIsForgottenAndALateVerdictIgnored() {
    RenderParity p = new RenderParity(null);
    p.workers(List.of(A, B));
    p.record(B, diverged("9"), ParitySchedule.Trigger.DISCOVERY);
    p.workers(List.of(A));
    assertThat(p.all()).containsOnlyKeys(A);
    assertThat(p.variants(true)).isEmpty();
    p.record(B, diverged("9"), ParitySchedule.Trigger.PERIODIC);
    assertThat(p.all()).containsOnlyKeys(A);
  }

  @Test
  void unsupportedAndFailedAreUnknownWithTheirReason() {
    RenderParity p = new RenderParity(null);
    p.workers(List.of(A, B));
    p.record(A, match(), ParitySchedule.Trigger.DISCOVERY);
    p.record(
        B,
        ParityCheck.notCompared(ParityStatus.UNSUPPORTED, "/tokenize answered 404", 1),
        ParitySchedule.Trigger.DISCOVERY);
    assertThat(p.condition().reason()).isEqualTo("Unsupported");
    assertThat(p.condition().message()).contains("404");
    assertThat(p.variants(true)).isEmpty(); // parity unknown: the router's tokens stay in use
    p.record(
        B,
        ParityCheck.notCompared(ParityStatus.FAILED, "timeout", 1),
        ParitySchedule.Trigger.RETRY);
    assertThat(p.condition().reason()).isEqualTo("ProbeFailed");
  }

  @Test
  void disabledMarksEveryWorker() {
    RenderParity p = new RenderParity("tokenizer.parity.enabled is false");
    p.workers(List.of(A));
    assertThat(p.enabled()).isFalse();
    assertThat(p.of(A).status()).isEqualTo(ParityStatus.DISABLED);
    assertThat(p.condition().reason()).isEqualTo("Disabled");
    assertThat(p.condition().message()).contains("tokenizer.parity.enabled");
  }

  @Test
  void metersShowEachWorkerStatusAndCountProbesAndRequests() {
    SimpleMeterRegistry reg = new SimpleMeterRegistry();
    RenderParity p = new RenderParity(null);
    p.bindTo(reg);
    p.workers(List.of(A, B));
    p.record(B, diverged("9 2 3"), ParitySchedule.Trigger.DISCOVERY);
    assertThat(
            reg.get("infera_render_parity_worker")
                .tags("worker", "b", "status", "diverged")
                .gauge()
                .value())
        .isEqualTo(1.0);
    assertThat(
            reg.get("infera_render_parity_worker")
                .tags("worker", "a", "status", "pending")
                .gauge()
                .value())
        .isEqualTo(1.0);
    assertThat(reg.get("infera_render_parity_workers").tag("status", "diverged").gauge().value())
        .isEqualTo(1.0);
    assertThat(
            reg.get("infera_render_parity_probes")
                .tags("trigger", "discovery", "result", "diverged")
                .counter()
                .count())
        .isEqualTo(1.0);
    p.usedEngineTokens();
    p.usedEstimate();
    p.usedEstimate();
    assertThat(reg.get("infera_render_parity_requests").tag("path", "engine").counter().count())
        .isEqualTo(1.0);
    assertThat(reg.get("infera_render_parity_requests").tag("path", "estimate").counter().count())
        .isEqualTo(2.0);
    p.record(B, match(), ParitySchedule.Trigger.PERIODIC);
    assertThat(
            reg.find("infera_render_parity_worker")
                .tags("worker", "b", "status", "diverged")
                .gauge())
        .isNull();
  }
}
