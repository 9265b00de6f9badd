package io.infera.router.accuracy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The cached-tokens reader against the engines' answer shapes and hostile ones. */
class UsageParserTest {

  static CachedTokens json(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return UsageParser.json(b, 0, b.length);
  }

  static CachedTokens sse(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return UsageParser.sseTail(b, b.length, false);
  }

  @Test
  void readsAVllmChatAnswer() {
    String body =
        "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"model\":\"m\",\"choices\":[{\"index\":0,"
            + "\"message\":{\"role\":\"assistant\",\"content\":\"hi \\\"usage\\\":{}\"},"
            + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":100,\"total_tokens\":110,"
            + "\"completion_tokens\":10,\"prompt_tokens_details\":{\"cached_tokens\":64}},"
            + "\"prompt_logprobs\":null}";
    assertThat(json(body)).isEqualTo(new CachedTokens.Reported(64));
  }

  @Test
  void readsAnSglangAnswerWithExtraDetails() {
    String body =
        "{\"usage\":{\"prompt_tokens\":10,\"prompt_tokens_details\":{\"audio_tokens\":null,"
            + "\"cached_tokens\":0},\"reasoning_tokens\":0}}";
    assertThat(json(body)).isEqualTo(new CachedTokens.Reported(0));
  }

  @Test
  void aMissingOrNullFieldIsUnknownNeverZero() {
    assertThat(json("{\"choices\":[]}")).isEqualTo(CachedTokens.NO_USAGE);
    assertThat(json("{\"usage\":null}")).isEqualTo(CachedTokens.NO_USAGE);
    assertThat(json("{\"usage\":{\"prompt_tokens\":5}}")).isEqualTo(CachedTokens.NO_DETAILS);
    assertThat(json("{\"usage\":{\"prompt_tokens_details\":null}}"))
        .isEqualTo(CachedTokens.NO_DETAILS);
    assertThat(json("{\"usage\":{\"prompt_tokens_details\":{}}}"))
        .isEqualTo(CachedTokens.NO_CACHED_TOKENS);
    assertThat(json("{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":null}}}"))
        .isEqualTo(CachedTokens.NO_CACHED_TOKENS);
  }

  @Test
  void wrongTypesAndRangesAreMalformed() {
    for (String v :
        new String[] {
          "\"64\"",
          "64.0",
          "-1",
          "true",
          "[64]",
          "{\"n\":64}",
          "4294967296",
          "1e3",
          "123456789012345678901234567890"
        }) {
      assertThat(json("{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":" + v + "}}}"))
          .as(v)
          .isEqualTo(CachedTokens.MALFORMED);
    }
    assertThat(json("{\"usage\":\"lots\"}")).isEqualTo(CachedTokens.MALFORMED);
    assertThat(json("{\"usage\":[1]}")).isEqualTo(CachedTokens.MALFORMED);
    assertThat(json("{\"usage\":{\"prompt_tokens_details\":7}}")).isEqualTo(CachedTokens.MALFORMED);
  }

  @Test
  void brokenDocumentsAreMalformed() {
    for (String s :
        new String[] {
          "",
          "null",
          "[]",
          "\"x\"",
          "{",
          "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5}}",
          "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5}}}}",
          "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5}}} {}",
          "{\"a\":1,}",
          "\u0000\u0001garbage",
          "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5"
        }) {
      assertThat(json(s)).as(s).isEqualTo(CachedTokens.MALFORMED);
    }
  }

  @Test
  void deepNestingIsRefusedNotOverflowed() {
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    assertThat(json("{\"choices\":" + deep + ",\"usage\":{}}")).isEqualTo(CachedTokens.MALFORMED);
    // within the cap, skipped
    String ok = "[".repeat(50) + "]".repeat(50);
    assertThat(
            json(
                "{\"choices\":"
                    + ok
                    + ",\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":3}}}"))
        .isEqualTo(new CachedTokens.Reported(3));
  }

  @Test
  void theLastUsageWins() {
    assertThat(
            json(
                "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":3}},"
                    + "\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":9}}}"))
        .isEqualTo(new CachedTokens.Reported(9));
  }

  // ------------------------------------------------------------------------------------ SSE

  private static final String CHUNK =
      "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
          + "\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n";
  private static final String USAGE =
      "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":"
          + "{\"prompt_tokens\":80,\"completion_tokens\":2,\"total_tokens\":82,"
          + "\"prompt_tokens_details\":{\"cached_tokens\":48}}}\n\n";

  @Test
  void readsTheIncludeUsageChunkBeforeDone() {
    assertThat(sse(CHUNK + CHUNK + USAGE + "data: [DONE]\n\n"))
        .isEqualTo(new CachedTokens.Reported(48));
  }

  @Test
  void aStreamWithoutUsageIsUnknown() {
    assertThat(sse(CHUNK + CHUNK + "data: [DONE]\n\n")).isEqualTo(CachedTokens.NO_USAGE);
    assertThat(sse("")).isEqualTo(CachedTokens.NO_USAGE);
    assertThat(sse(": just a comment\n\n")).isEqualTo(CachedTokens.NO_USAGE);
    // continuous usage stats without details: the last one says NO_DETAILS
    assertThat(sse("data: {\"usage\":{\"prompt_tokens\":3}}\n\ndata: [DONE]\n\n"))
        .isEqualTo(CachedTokens.NO_DETAILS);
  }

  @Test
  void crlfCrAndCommentsAndMultiLineData() {
    assertThat(sse((CHUNK + USAGE).replace("\n", "\r\n") + "data: [DONE]\r\n\r\n"))
        .isEqualTo(new CachedTokens.Reported(48));
    assertThat(sse((CHUNK + USAGE).replace("\n", "\r") + "data: [DONE]\r\r"))
        .isEqualTo(new CachedTokens.Reported(48));
    assertThat(
            sse(
                ": keep-alive\n\nevent: message\nid: 7\ndata: {\"usage\":\ndata: {\"prompt_tokens_details\""
                    + ":{\"cached_tokens\":16}}}\n: trailing comment\n\n: ping\n\ndata:[DONE]\n\n"))
        .isEqualTo(new CachedTokens.Reported(16));
  }

  @Test
  void anUnterminatedLastEventStillCounts() {
    assertThat(sse(CHUNK + USAGE.trim())).isEqualTo(new CachedTokens.Reported(48));
  }

  @Test
  void aCutHeadIsNotRead() {
    String tail = "okens_details\":{\"cached_tokens\":99}}}\n\n" + CHUNK;
    byte[] b = tail.getBytes(StandardCharsets.UTF_8);
    assertThat(UsageParser.sseTail(b, b.length, true)).isEqualTo(CachedTokens.NO_USAGE);
    // ... while a whole event after it is
    byte[] c = ("ns\":3}}\n\n" + USAGE + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
    assertThat(UsageParser.sseTail(c, c.length, true)).isEqualTo(new CachedTokens.Reported(48));
  }

  @Test
  void malformedEventsAreMalformedOnlyWhenNothingElseSays() {
    assertThat(sse("data: {not json\n\ndata: [DONE]\n\n")).isEqualTo(CachedTokens.MALFORMED);
    assertThat(sse(USAGE + "data: {not json\n\ndata: [DONE]\n\n"))
        .isEqualTo(new CachedTokens.Reported(48));
    assertThat(sse("data: {\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":\"x\"}}}\n\n"))
        .isEqualTo(CachedTokens.MALFORMED);
  }

  @Test
  void fieldsThatOnlyLookLikeDataAreIgnored() {
    assertThat(sse("dataX: " + USAGE.substring(6))).isEqualTo(CachedTokens.NO_USAGE);
    assertThat(sse(" data: " + USAGE.substring(6))).isEqualTo(CachedTokens.NO_USAGE);
  }
}
