package io.infera.router.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.KvEventMessage;
import io.infera.router.nats.RelayProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which received messages become stream batches: duplicates, restarts, resuming after restart. */
class IngestFilterTest {

  private final EngineScript engine = new EngineScript(4);
  private final EngineScript otherRun = new EngineScript(4, 1_800_000_000.0);
  private final RelayCounters counters = new RelayCounters();

  private IngestFilter fresh() {
    return new IngestFilter(2, Map.of(), counters);
  }

  /** Feeds "seq" (live) or "rN" (replayed N) or "oN" (other engine run, live) tokens. */
  private List<Long> feed(IngestFilter f, String script) {
    List<Long> out = new ArrayList<>();
    for (String tok : script.trim().split("\\s+")) {
      boolean replayed = tok.startsWith("r");
      boolean other = tok.startsWith("o");
      long seq = Long.parseLong(replayed || other ? tok.substring(1) : tok);
      EngineScript e = other ? otherRun : engine;
      for (RelayBatch b : f.accept(0, e.frames(seq, 0), replayed, 0)) {
        out.add(b.engineSeq());
      }
    }
    return out;
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "'0 1 2 3', '0 1 2 3'",
    "'0 1 1 2', '0 1 2'", // duplicate skipped
    "'0 1 5 6', '0 1 5 6'", // a gap stays a gap
    "'0 1 2 0 1', '0 1 2 0 1'", // lower: the engine restarted, forwarded
    "'r0 r1 2 3', '0 1 2 3'", // catch-up replay before the first live batch
  })
  void steadyStateMirrorsTheIndex(String in, String out) {
    assertThat(feed(fresh(), in)).containsExactlyElementsOf(longs(out));
  }

  @Test
  void countsDuplicatesAndRestarts() {
    feed(fresh(), "0 1 1 2 0");
    assertThat(counters.duplicatesSkipped.get()).isEqualTo(1);
    assertThat(counters.engineRestarts.get()).isEqualTo(1);
    assertThat(counters.received.get()).isEqualTo(5);
  }

  @Test
  void twoFrameMessagesAreForwardedWithoutSequence() {
    IngestFilter f = fresh();
    List<RelayBatch> out = f.accept(1, List.of(new byte[0], engine.payload(0, 1)), false, 0);
    assertThat(out)
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.engineSeq()).isEqualTo(KvEventMessage.NO_SEQ);
              assertThat(b.rank()).isEqualTo(1);
              assertThat(b.payload()).isEqualTo(engine.payload(0, 1));
            });
    // ATOM without a topic sends the payload alone: forwarded, not malformed.
    assertThat(f.accept(0, List.of(engine.payload(0, 0)), false, 0))
        .singleElement()
        .satisfies(b -> assertThat(b.hasSeq()).isFalse());
    assertThat(counters.malformed.get()).isZero();
    byte[][] four = {new byte[0], new byte[0], new byte[0], engine.payload(0, 0)};
    assertThat(f.accept(0, List.of(four), false, 0)).hasSize(1);
    assertThat(counters.malformed.get()).isEqualTo(1);
    assertThat(f.accept(5, engine.frames(0, 0), false, 0)).isEmpty();
  }

  private IngestFilter resumingAt(long last, boolean hashKnown) {
    long hash = hashKnown ? RelayProtocol.payloadHash(engine.payload(last, 0)) : 0;
    return new IngestFilter(1, Map.of(0, new IngestFilter.Resume(last, hash, hashKnown)), counters);
  }

  @ParameterizedTest(name = "stream ends at 5 (hash known {1}): {0} -> {2}")
  @CsvSource({
    // Same engine run: its buffer replays 0..7, then live 8 — only 6.. is new.
    "'r0 r1 r2 r3 r4 r5 r6 r7 8 9', true, '6 7 8 9'",
    "'r0 r1 r2 r3 r4 r5 r6 r7 8 9', false, '6 7 8 9'",
    // Replay started after the stream's last: nothing to skip.
    "'r6 r7 8', true, '6 7 8'",
    // No replay at all, next live batch.
    "'6 7', true, '6 7'",
    // The engine restarted: its live sequence is below the stream's last.
    "'r0 r1 2 3', true, '0 1 2 3'",
    "'r0 r1 2 3', false, '0 1 2 3'",
    // Another run that reached seq 5 with other payloads: everything is new.
    "'o0 o1 o2 o3 o4 o5 o6', true, '0 1 2 3 4 5 6'",
    // Live batch equal to the stream's last (re-sent), same payload: skipped.
    "'5 6', true, '6'",
  })
  void resumesAfterTheStreamsLastBatch(String in, boolean hashKnown, String out) {
    assertThat(feed(resumingAt(5, hashKnown), in)).containsExactlyElementsOf(longs(out));
  }

  @Test
  void anotherRunWithReplayedBatchesIsForwardedInFull() {
    IngestFilter f = resumingAt(5, true);
    List<Long> out = new ArrayList<>();
    for (long i = 0; i <= 6; i++) {
      for (RelayBatch b : f.accept(0, otherRun.frames(i, 0), i < 6, 0)) {
        out.add(b.engineSeq());
      }
    }
    assertThat(out).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(counters.engineRestarts.get()).isEqualTo(1);
  }

  @Test
  void resumeSkipsAreCounted() {
    feed(resumingAt(5, true), "r0 r1 r2 r3 r4 r5 r6 7");
    assertThat(counters.resumeSkipped.get()).isEqualTo(6);
    assertThat(counters.engineRestarts.get()).isZero();
  }

  private static List<Long> longs(String s) {
    List<Long> out = new ArrayList<>();
    for (String t : s.trim().split("\\s+")) {
      out.add(Long.parseLong(t));
    }
    return out;
  }
}
