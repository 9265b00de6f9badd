package io.infera.sim.workload;

import static io.infera.sim.workload.WorkloadAssertions.assertWellFormed;
import static io.infera.sim.workload.WorkloadAssertions.commonPrefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TraceWorkloadTest {

  private static final String VALID =
      "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}";

  private static final String TRACE =
      String.join(
          "\n",
          "{\"timestamp\": 100, \"input_length\": 1300, \"output_length\": 7, \"hash_ids\": [1, 2,"
              + " 3]}",
          "{\"timestamp\": 50, \"input_length\": 1100, \"output_length\": 9, \"hash_ids\": [1, 2,"
              + " 4], \"extra\": {\"ignored\": [true, null]}}",
          "",
          "{\"timestamp\": 300.5, \"input_length\": 100, \"output_length\": 3, \"hash_ids\": [5]}",
          "{\"timestamp\": 300.5, \"input_length\": 512, \"output_length\": 3, \"hash_ids\": [5]}");

  private static TraceWorkload trace(TraceWorkload.Options options) throws Exception {
    return TraceWorkload.parse(TRACE, "t.jsonl", options);
  }

  @Test
  void oneSessionPerLineAtItsTimestamp() throws Exception {
    TraceWorkload w = trace(TraceWorkload.Options.defaults());
    assertWellFormed(w);
    List<Session> s = w.sessions();
    assertThat(s).extracting(Session::id).containsExactly("line-2", "line-1", "line-4", "line-5");
    assertThat(s).extracting(Session::startMs).containsExactly(0.0, 50.0, 250.5, 250.5);
    assertThat(s)
        .extracting(x -> x.turns().get(0).userTokens().length)
        .containsExactly(1100, 1300, 100, 512);
    assertThat(s).extracting(x -> x.turns().get(0).outputTokens()).containsExactly(9, 7, 3, 3);
    assertThat(s).extracting(Session::group).containsExactly("h1", "h1", "h5", "h5");
    assertThat(s).allSatisfy(x -> assertThat(x.systemTokens()).isEmpty());
    assertThat(trace(TraceWorkload.Options.defaults().withSpeedup(2)).sessions().get(1).startMs())
        .isEqualTo(25.0);
  }

  @Test
  void equalHashIdsGiveEqualTokens() throws Exception {
    List<Session> s = trace(TraceWorkload.Options.defaults()).sessions();
    int[] a = s.get(0).turns().get(0).userTokens(); // [1, 2, 4]
    int[] b = s.get(1).turns().get(0).userTokens(); // [1, 2, 3]
    assertThat(Arrays.copyOf(a, 1024)).containsExactly(Arrays.copyOf(b, 1024));
    assertThat(Arrays.copyOfRange(a, 1024, 1100)).isNotEqualTo(Arrays.copyOfRange(b, 1024, 1100));
    // A partial block is the prefix of the same hash id's full block.
    int[] partial = s.get(2).turns().get(0).userTokens();
    int[] full = s.get(3).turns().get(0).userTokens();
    assertThat(commonPrefix(partial, full)).isEqualTo(100);
    // Different seeds give different tokens but the same sharing.
    List<Session> other = trace(TraceWorkload.Options.defaults().withSeed(1)).sessions();
    int[] c = other.get(0).turns().get(0).userTokens();
    assertThat(c).isNotEqualTo(a);
    assertThat(commonPrefix(c, other.get(1).turns().get(0).userTokens()))
        .isGreaterThanOrEqualTo(1024);
  }

  @Test
  void sessionsAreRegeneratedIdenticallyOnEveryAccess() throws Exception {
    TraceWorkload w = trace(TraceWorkload.Options.defaults());
    assertThat(w.sessions()).isEqualTo(w.sessions());
    assertThatThrownBy(() -> w.sessions().add(w.sessions().get(0)))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> w.sessions().get(4)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void statsCountEachHashIdOnce() throws Exception {
    WorkloadStats st = trace(TraceWorkload.Options.defaults()).stats();
    assertThat(st.sessions()).isEqualTo(4);
    assertThat(st.requests()).isEqualTo(4);
    assertThat(st.promptTokens()).isEqualTo(1300 + 1100 + 100 + 512);
    assertThat(st.promptTokensUpperBound()).isEqualTo(st.promptTokens());
    assertThat(st.outputTokens()).isEqualTo(7 + 9 + 3 + 3);
    // ids 1, 2: 512 each; 3: 276; 4: 76; 5: 512 (its longest use).
    assertThat(st.distinctPrefixTokens()).isEqualTo(512 + 512 + 276 + 76 + 512);
  }

  @Test
  void maxRequestsAndBlockSize() throws Exception {
    assertThat(trace(TraceWorkload.Options.defaults().withMaxRequests(2)).sessions())
        .extracting(Session::id)
        .containsExactly("line-2", "line-1");
    TraceWorkload small =
        TraceWorkload.parse(
            "{\"timestamp\": 0, \"input_length\": 40, \"output_length\": 1, \"hash_ids\": [1, 2,"
                + " 3]}",
            "small",
            TraceWorkload.Options.defaults().withBlockTokens(16));
    assertThat(small.sessions().get(0).turns().get(0).userTokens()).hasSize(40);
  }

  @Test
  void loadsAFileWithBomAndCrlf(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("mooncake.jsonl");
    Files.writeString(file, "\uFEFF" + VALID + "\r\n\r\n" + VALID + "\r\n", StandardCharsets.UTF_8);
    TraceWorkload w = TraceWorkload.load(file, TraceWorkload.Options.defaults());
    assertThat(w.sessions()).extracting(Session::id).containsExactly("line-1", "line-3");
    assertThat(w.source()).isEqualTo("mooncake.jsonl");
    assertThat(w.parameters()).containsEntry("requests", 2);
  }

  @Test
  void emptyTraceIsAnError() {
    TraceFormatException e =
        catchThrowableOfType(
            TraceFormatException.class,
            () -> TraceWorkload.parse("\n  \n", "empty.jsonl", TraceWorkload.Options.defaults()));
    assertThat(e.line()).isZero();
    assertThat(e.getMessage())
        .isEqualTo("empty.jsonl: no requests (the trace has no non-blank line)");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          not json                                                                     | invalid JSON at column 4: Unrecognized token 'not'
          {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1]     | invalid JSON at column 73: Unexpected end-of-input: expected close marker for Object
          {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1],}   | invalid JSON
          [1, 2]                                                                       | expected a JSON object
          42                                                                           | expected a JSON object
          {"input_length": 10, "output_length": 1, "hash_ids": [1]}                    | missing field "timestamp"
          {"timestamp": 0, "output_length": 1, "hash_ids": [1]}                        | missing field "input_length"
          {"timestamp": 0, "input_length": 10, "hash_ids": [1]}                        | missing field "output_length"
          {"timestamp": 0, "input_length": 10, "output_length": 1}                     | missing field "hash_ids"
          {"timestamp": 0, "input_length": -5, "output_length": 1, "hash_ids": []}     | "input_length" must be between 1 and 16777216, got -5
          {"timestamp": 0, "input_length": 0, "output_length": 1, "hash_ids": []}      | "input_length" must be between 1 and 16777216, got 0
          {"timestamp": 0, "input_length": 10, "output_length": -1, "hash_ids": [1]}   | "output_length" must be between 1 and 16777216, got -1
          {"timestamp": 0, "input_length": 10.5, "output_length": 1, "hash_ids": [1]}  | "input_length" must be an integer, got a number
          {"timestamp": 0, "input_length": "10", "output_length": 1, "hash_ids": [1]}  | "input_length" must be an integer, got a string
          {"timestamp": 0, "input_length": 99999999999999999999, "output_length": 1, "hash_ids": [1]} | "input_length" must be between 1 and 16777216, got 99999999999999999999
          {"timestamp": 0, "input_length": 16777217, "output_length": 1, "hash_ids": [1]} | "input_length" must be between 1 and 16777216
          {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1, 2]} | hash_ids has 2 entries but input_length 10 needs ⌈10 / 512⌉ = 1
          {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": []}     | hash_ids has 0 entries
          {"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [1]}   | hash_ids has 1 entries but input_length 600 needs ⌈600 / 512⌉ = 2
          {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1.5]}  | "hash_ids"[0] must be an integer, got a number
          {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [99999999999999999999]} | "hash_ids"[0] is out of the 64-bit range
          {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": "1"}    | "hash_ids" must be an array of integers, got a string
          {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": null}   | "hash_ids" must be an array of integers, got null
          {"timestamp": 1e400, "input_length": 10, "output_length": 1, "hash_ids": [1]} | "timestamp" must be between 0 and
          {"timestamp": -1, "input_length": 10, "output_length": 1, "hash_ids": [1]}   | "timestamp" must be between 0 and
          {"timestamp": null, "input_length": 10, "output_length": 1, "hash_ids": [1]} | "timestamp" must be a number (ms), got null
          {"timestamp": 0, "timestamp": 1, "input_length": 10, "output_length": 1, "hash_ids": [1]} | duplicate field "timestamp"
          {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1]} {} | unexpected data after the JSON object
          {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1]} x  | invalid JSON
          {"timestamp": 0, "input_length": 1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000, "output_length": 1, "hash_ids": [1]} | invalid JSON
          {"x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] | invalid JSON
          """)
  void malformedLinesNameTheLine(String line, String expected) {
    String text = VALID + "\n" + line + "\n" + VALID + "\n";
    TraceFormatException e =
        catchThrowableOfType(
            TraceFormatException.class,
            () -> TraceWorkload.parse(text, "bad.jsonl", TraceWorkload.Options.defaults()));
    assertThat(e).as("no error for %s", line).isNotNull();
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.source()).isEqualTo("bad.jsonl");
    assertThat(e.getMessage()).startsWith("bad.jsonl, line 2: ").contains(expected);
    assertThat(e.getMessage()).doesNotContain("\n", "Source:", "com.fasterxml");
    assertThat(e.getStackTrace()).isEmpty(); // a user-facing message, not a crash
  }
}
