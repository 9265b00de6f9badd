package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.events.nats.SeedRules.Count;
import io.infera.router.events.nats.SeedRules.Verdict;
import io.infera.router.kv.ViewSnapshot;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class SeedRulesTest {

  @ParameterizedTest(
      name = "present {0}, rev {1}, created {2}, tried {3}, purged at {4}, stream {5} → {6}")
  @CsvSource(
      nullValues = "none",
      value = {
        // present, revision, created s, tried revision, purged at revision, stream created s
        "true, 5, 100, 0, none, 50, SEED",
        "false, 5, 100, 0, none, 50, ABSENT",
        "true, 5, 100, 5, none, 50, ALREADY_TRIED",
        "true, 5, 100, 7, none, 50, ALREADY_TRIED",
        "true, 5, 100, 0, 5, 50, PREDATES_REMOVAL",
        "true, 6, 100, 0, 5, 50, SEED",
        "true, 5, 40, 0, none, 50, PREDATES_STREAM",
        "true, 5, 50, 0, none, 50, SEED",
        "true, 5, none, 0, none, 50, SEED",
        "true, 5, 40, 0, none, none, SEED",
        // The first failing check decides.
        "true, 5, 40, 5, 5, 50, ALREADY_TRIED",
        "true, 5, 40, 0, 5, 50, PREDATES_REMOVAL",
      })
  void screensBeforeDecoding(
      boolean present,
      long revision,
      Long createdSeconds,
      long tried,
      Long purgedAt,
      Long streamCreatedSeconds,
      Verdict expected) {
    assertThat(
            SeedRules.screen(
                present,
                revision,
                createdSeconds == null ? null : Instant.ofEpochSecond(createdSeconds),
                tried,
                purgedAt,
                streamCreatedSeconds == null ? null : Instant.ofEpochSecond(streamCreatedSeconds)))
        .isEqualTo(expected);
  }

  @ParameterizedTest(name = "block {0}, watermark {1}, stream last {2}, applied {3} → {4}")
  @CsvSource({
    // block size, snapshot watermark, stream last seq, applied stream seq
    "16, 40, 100, 30, SEED",
    "16, 40, 100, 40, SEED",
    "16, 40, 40, 0, SEED",
    // Block sizes are per worker: any usable size seeds; only an unusable one is refused.
    "64, 40, 100, 30, SEED",
    "16385, 40, 100, 30, WRONG_BLOCK_SIZE",
    "16, 101, 100, 0, BEYOND_STREAM",
    "16, 39, 100, 40, STALE",
    // The block size is checked first, then the stream, then the applied events.
    "16385, 101, 100, 200, WRONG_BLOCK_SIZE",
    "16, 101, 100, 200, BEYOND_STREAM",
  })
  void judgesTheDecodedSnapshot(
      int blockSize, long watermark, long streamLast, long applied, Verdict expected) {
    ViewSnapshot snap = new ViewSnapshot(blockSize, 3, watermark, new long[] {1}, new long[] {2});
    assertThat(SeedRules.judge(snap, streamLast, applied)).isEqualTo(expected);
  }

  @ParameterizedTest
  @EnumSource(Verdict.class)
  void refusalsThatCouldChangeAreNotRememberedAndOnlyBadOrStaleOnesAreCounted(Verdict v) {
    boolean retryable = v == Verdict.SEED || v == Verdict.ABSENT || v == Verdict.ALREADY_TRIED;
    assertThat(v.marksTried()).isEqualTo(!retryable);
    Count expected =
        switch (v) {
          case UNREADABLE, WRONG_BLOCK_SIZE, BEYOND_STREAM -> Count.BAD;
          case STALE -> Count.STALE;
          case SEED, ABSENT, ALREADY_TRIED, PREDATES_REMOVAL, PREDATES_STREAM -> Count.NONE;
        };
    assertThat(v.count()).isEqualTo(expected);
  }
}
