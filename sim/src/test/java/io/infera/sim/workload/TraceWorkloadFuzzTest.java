package io.infera.sim.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** A trace is external input: no line, however mangled, escapes as anything but typed. */
class TraceWorkloadFuzzTest {

  private static final String[] TOKENS = {
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "-",
    "0",
    "1",
    "9",
    ".",
    "e",
    "E",
    "+",
    " ",
    "\n",
    "\\",
    "null",
    "true",
    "\"timestamp\"",
    "\"input_length\"",
    "\"output_length\"",
    "\"hash_ids\"",
    "99999999999999999999999",
    "1e999",
    "-0",
    "\u0000",
    "\uFEFF",
    "\uD800",
    "[[[[[[[[",
    "]]]]]]]]"
  };

  @Provide
  Arbitrary<String> mutatedTraces() {
    return Arbitraries.randomValue(TraceWorkloadFuzzTest::mutatedTrace);
  }

  /** A few valid lines, then random deletions, insertions, duplications and truncations. */
  static String mutatedTrace(Random r) {
    StringBuilder sb = new StringBuilder();
    int lines = 1 + r.nextInt(3);
    for (int i = 0; i < lines; i++) {
      int input = 1 + r.nextInt(2000);
      int blocks = (input + 511) / 512;
      sb.append("{\"timestamp\": ").append(r.nextInt(100_000));
      sb.append(", \"input_length\": ").append(input);
      sb.append(", \"output_length\": ").append(1 + r.nextInt(500));
      sb.append(", \"hash_ids\": [");
      for (int b = 0; b < blocks; b++) {
        sb.append(b == 0 ? "" : ", ").append(r.nextInt(50));
      }
      sb.append("]}\n");
    }
    int mutations = r.nextInt(4);
    for (int m = 0; m < mutations && sb.length() > 0; m++) {
      int at = r.nextInt(sb.length() + 1);
      switch (r.nextInt(5)) {
        case 0 -> sb.insert(at, TOKENS[r.nextInt(TOKENS.length)]);
        case 1 -> sb.delete(at, Math.min(sb.length(), at + 1 + r.nextInt(8)));
        case 2 -> sb.setLength(at);
        case 3 -> {
          int from = r.nextInt(sb.length());
          int to = Math.min(sb.length(), from + 1 + r.nextInt(20));
          sb.insert(at, sb.substring(from, to));
        }
        default -> {
          if (at < sb.length()) {
            sb.setCharAt(at, (char) r.nextInt(128));
          }
        }
      }
    }
    return sb.toString();
  }

  @Property(tries = 3000)
  void mutatedTracesParseOrFailTyped(@ForAll("mutatedTraces") String text) {
    try {
      TraceWorkload w = TraceWorkload.parse(text, "fuzz", TraceWorkload.Options.defaults());
      // Whatever parsed must also materialise.
      for (Session s : w.sessions()) {
        assertThat(s.turns().get(0).userTokens()).isNotEmpty();
      }
    } catch (TraceFormatException expected) {
      assertThat(expected.getMessage()).isNotBlank().doesNotContain("\n");
      assertThat(expected.line()).isBetween(0, (int) text.lines().count() + 1);
    }
  }

  @Property(tries = 2000)
  void arbitraryTextFailsTyped(@ForAll String text) {
    try {
      TraceWorkload.parse(text, "fuzz", TraceWorkload.Options.defaults());
    } catch (TraceFormatException expected) {
      assertThat(expected.getMessage()).isNotBlank();
    }
  }
}
