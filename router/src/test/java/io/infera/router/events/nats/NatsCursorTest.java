package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.events.nats.NatsCursor.Degraded;
import io.infera.router.events.nats.NatsCursor.Verdict;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The nats transport's position rules: start sequence, skip-by-watermark, loss and repair. */
class NatsCursorTest {

  private static final SourceId A = SourceId.of("a", 0);
  private static final SourceId B = SourceId.of("b", 0);
  private static final long NONE = KvEventMessage.NO_SEQ;

  private static ViewSnapshot snap(long engineSeq, long streamSeq) {
    return new ViewSnapshot(16, engineSeq, streamSeq, new long[] {1}, new long[] {2});
  }

  /** Advances and admits, as the transport does for a discovered worker's message. */
  private static Verdict offer(NatsCursor c, SourceId id, long streamSeq, long engineSeq) {
    assertThat(c.isNew(streamSeq)).isTrue();
    c.advance(streamSeq);
    return c.admit(id, streamSeq, engineSeq, 0.0);
  }

  @Test
  void startsAfterTheSmallestWatermarkWhenEverySourceHasASnapshot() {
    NatsCursor c = new NatsCursor();
    c.seeded(A, snap(10, 40), 1, 0);
    c.seeded(B, snap(3, 25), 2, 0);
    assertThat(c.startSeq(List.of(A, B), 100)).isEqualTo(26);
  }

  @Test
  void startsAtTheFirstMessageWhenASourceHasNoSnapshot() {
    NatsCursor c = new NatsCursor();
    c.seeded(A, snap(10, 40), 1, 0);
    c.register(B);
    assertThat(c.startSeq(List.of(A, B), 100)).isEqualTo(1);
    assertThat(c.startSeq(List.of(A, SourceId.of("c", 0)), 100)).isEqualTo(1);
  }

  @Test
  void startsAfterTheStreamsEndWhenNoWorkerIsKnown() {
    assertThat(new NatsCursor().startSeq(List.of(), 100)).isEqualTo(101);
  }

  @Test
  void eachSourceSkipsWhatItsOwnSnapshotCovers() {
    NatsCursor c = new NatsCursor();
    c.seeded(A, snap(10, 40), 1, 0);
    c.seeded(B, snap(3, 25), 2, 0);
    c.startAt(26);
    assertThat(offer(c, A, 26, 9)).isEqualTo(Verdict.COVERED);
    assertThat(offer(c, B, 27, 4)).isEqualTo(Verdict.DELIVER);
    assertThat(offer(c, A, 40, 10)).isEqualTo(Verdict.COVERED);
    assertThat(offer(c, A, 41, 11)).isEqualTo(Verdict.DELIVER);
    assertThat(c.get(A).covered).isEqualTo(2);
    assertThat(c.get(A).messages).isEqualTo(1);
    assertThat(c.get(A).lastStreamSeq).isEqualTo(41);
    assertThat(c.get(A).lastEngineSeq).isEqualTo(11);
    assertThat(c.get(A).degraded).isNull();
    assertThat(c.get(B).degraded).isNull();
  }

  @Test
  void aSequenceIsProcessedOnceAndGapsAreMeasured() {
    NatsCursor c = new NatsCursor();
    c.startAt(5);
    assertThat(c.processed()).isEqualTo(4);
    assertThat(c.isNew(4)).isFalse();
    assertThat(c.gapBefore(5)).isZero();
    assertThat(c.gapBefore(9)).isEqualTo(4);
    c.advance(9);
    assertThat(c.isNew(9)).isFalse();
    c.advance(3);
    assertThat(c.processed()).isEqualTo(9);
  }

  @Test
  void aSnapshotNeverRollsBackAppliedEvents() {
    NatsCursor c = new NatsCursor();
    offer(c, A, 1, 0);
    offer(c, A, 5, 1);
    assertThat(c.seedable(A, snap(0, 4))).isFalse();
    assertThat(c.seedable(A, snap(1, 5))).isTrue();
    assertThat(c.seedable(B, snap(0, 1))).isTrue();
  }

  @Test
  void lostMessagesMakeUncoveredSourcesSuspectUntilTheEngineSeqContinues() {
    NatsCursor c = new NatsCursor();
    c.seeded(A, snap(10, 50), 1, 0);
    c.seeded(B, snap(3, 20), 2, 0);
    c.startAt(21);
    assertThat(c.lost(21, 49)).containsExactly(B);
    assertThat(c.get(A).degraded).isNull();
    assertThat(c.get(B).degraded).isEqualTo(Degraded.EVENTS_LOST);
    c.advance(49);
    // The next batch of b continues its engine sequence: nothing of b was in the lost range.
    assertThat(offer(c, B, 50, 4)).isEqualTo(Verdict.DELIVER);
    assertThat(c.get(B).degraded).isNull();
  }

  @Test
  void lostMessagesAndAnEngineJumpLeaveTheSourceDegradedUntilACoveringSeed() {
    NatsCursor c = new NatsCursor();
    c.seeded(B, snap(3, 20), 2, 0);
    c.startAt(21);
    c.lost(21, 49);
    c.advance(49);
    offer(c, B, 50, 9);
    assertThat(c.get(B).degraded).isEqualTo(Degraded.ENGINE_GAP);
    // A snapshot older than what was applied is refused.
    assertThat(c.seedable(B, snap(5, 45))).isFalse();
    assertThat(c.seedable(B, snap(9, 50))).isTrue();
    c.seeded(B, snap(9, 50), 3, 0);
    assertThat(c.get(B).degraded).isNull();
    assertThat(c.get(B).coveredThrough).isEqualTo(50);
  }

  @Test
  void aSeedThatDoesNotCoverTheLostRangeKeepsTheSuspicion() {
    NatsCursor c = new NatsCursor();
    c.register(B);
    c.lost(1, 30);
    c.seeded(B, snap(3, 20), 2, 0);
    assertThat(c.get(B).degraded).isEqualTo(Degraded.EVENTS_LOST);
    c.seeded(B, snap(4, 30), 3, 0);
    assertThat(c.get(B).degraded).isNull();
  }

  @ParameterizedTest(name = "last={0} next={1} → {2}")
  @CsvSource({
    "4, 5, HEALTHY",
    "4, 4, SUSPECT",
    "4, 7, ENGINE_GAP",
    "4, 0, HEALTHY",
    "4, 2, ENGINE_GAP"
  })
  void theEngineSequenceJudgesASuspectSource(long last, long next, String expected) {
    NatsCursor c = new NatsCursor();
    c.seeded(A, snap(last, 10), 1, 0);
    c.lost(11, 20);
    c.advance(20);
    offer(c, A, 21, next);
    Degraded d = c.get(A).degraded;
    switch (expected) {
      case "HEALTHY" -> assertThat(d).isNull();
      case "SUSPECT" -> assertThat(d).isEqualTo(Degraded.EVENTS_LOST);
      default -> assertThat(d).isEqualTo(Degraded.valueOf(expected));
    }
  }

  @Test
  void aFirstBatchThatIsNotTheEnginesFirstWithoutASnapshotIsAGap() {
    NatsCursor c = new NatsCursor();
    offer(c, A, 1, 0);
    assertThat(c.get(A).degraded).isNull();
    offer(c, B, 2, 17);
    assertThat(c.get(B).degraded).isEqualTo(Degraded.ENGINE_GAP);
    // Engines without sequence numbers cannot be judged.
    offer(c, SourceId.of("c", 0), 3, NONE);
    assertThat(c.get(SourceId.of("c", 0)).degraded).isNull();
  }

  @Test
  void aSeededSnapshotStandsForTheBatchesBeforeIt() {
    NatsCursor c = new NatsCursor();
    c.seeded(A, snap(16, 10), 1, 0);
    offer(c, A, 11, 17);
    assertThat(c.get(A).degraded).isNull();
    offer(c, A, 12, 19);
    assertThat(c.get(A).degraded).isEqualTo(Degraded.ENGINE_GAP);
  }

  @Test
  void aWorkerThatLeftIsForgotten() {
    NatsCursor c = new NatsCursor();
    c.seeded(A, snap(1, 10), 1, 0);
    c.register(SourceId.of("a", 1));
    c.register(B);
    c.removeWorker(WorkerId.of("a"));
    assertThat(c.sources()).extracting(s -> s.id).containsExactly(B);
  }

  @Test
  void aRecreatedStreamResetsPositionsButKeepsEngineSequences() {
    NatsCursor c = new NatsCursor();
    c.seeded(A, snap(7, 500), 1, 0);
    c.startAt(501);
    c.streamReset(1);
    assertThat(c.processed()).isZero();
    assertThat(offer(c, A, 1, 8)).isEqualTo(Verdict.DELIVER);
    assertThat(c.get(A).degraded).isNull();
  }

  @Test
  void triedRevisionsAreRemembered() {
    NatsCursor c = new NatsCursor();
    c.tried(A, 5);
    assertThat(c.get(A).triedRevision).isEqualTo(5);
    c.seeded(A, snap(1, 1), 3, 0);
    assertThat(c.get(A).triedRevision).isEqualTo(5);
    assertThat(c.get(A).snapshotRevision).isEqualTo(3);
  }
}
