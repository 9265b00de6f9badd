package io.infera.router.accuracy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Properties of the usage reader: any bytes are an answer (never an exception), and a well-formed
 * stream's cached tokens survive any line-break style, comments, keep-alives and cutting the head.
 */
class UsageParserProperties {

  @Property(tries = 500)
  void anyBytesAreAnAnswer(@ForAll @Size(max = 600) byte[] b, @ForAll boolean cut) {
    assertThat(UsageParser.json(b, 0, b.length)).isNotNull();
    assertThat(UsageParser.sseTail(b, b.length, cut)).isNotNull();
  }

  @Property(tries = 300)
  void anyPrefixOfAnAnswerIsAnAnswer(@ForAll @IntRange(min = 0, max = 200) int cutAt) {
    byte[] b =
        ("{\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":9,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":7}}}")
            .getBytes(StandardCharsets.UTF_8);
    int n = Math.min(cutAt, b.length);
    CachedTokens r = UsageParser.json(b, 0, n);
    assertThat(r).isEqualTo(n == b.length ? new CachedTokens.Reported(7) : CachedTokens.MALFORMED);
  }

  @Provide
  Arbitrary<String> breaks() {
    return Arbitraries.of("\n", "\r\n", "\r");
  }

  @Property(tries = 300)
  void aStreamsUsageSurvivesFraming(
      @ForAll("breaks") String nl,
      @ForAll @IntRange(min = 0, max = 30) int chunks,
      @ForAll @IntRange(min = 0, max = 1_000_000) int cached,
      @ForAll boolean comments,
      @ForAll boolean done,
      @ForAll @IntRange(min = 0, max = 40) int dropHead) {
    List<String> events = new ArrayList<>();
    for (int i = 0; i < chunks; i++) {
      events.add("data: {\"choices\":[{\"delta\":{\"content\":\"t" + i + "\"}}]}");
      if (comments) {
        events.add(": keep-alive " + i);
      }
    }
    events.add(
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":"
            + cached
            + "}}}");
    if (done) {
      events.add("data: [DONE]");
    }
    StringBuilder s = new StringBuilder();
    for (String e : events) {
      s.append(e).append(nl).append(nl);
    }
    byte[] all = s.toString().getBytes(StandardCharsets.UTF_8);
    assertThat(UsageParser.sseTail(all, all.length, false))
        .isEqualTo(new CachedTokens.Reported(cached));
    // Losing the head (a tail budget) keeps the answer as long as the usage event is whole.
    int usageStart = s.lastIndexOf("data: {\"choices\":[],\"usage\"");
    int drop = Math.min(dropHead, usageStart);
    byte[] tail = java.util.Arrays.copyOfRange(all, drop, all.length);
    CachedTokens r = UsageParser.sseTail(tail, tail.length, drop > 0);
    if (drop < usageStart || drop == 0) {
      assertThat(r).isEqualTo(new CachedTokens.Reported(cached));
    } else {
      assertThat(r).isIn(new CachedTokens.Reported(cached), CachedTokens.NO_USAGE);
    }
  }
}
