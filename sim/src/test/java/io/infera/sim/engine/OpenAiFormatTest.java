package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.sim.engine.OpenAiFormat.Meta;
import io.infera.sim.engine.RequestParser.Endpoint;
import org.junit.jupiter.api.Test;

class OpenAiFormatTest {

  private static final Meta CHAT = new Meta(Endpoint.CHAT, "chatcmpl-1", 7, "m");
  private static final Meta TEXT = new Meta(Endpoint.COMPLETIONS, "cmpl-1", 7, "m");

  @Test
  void chatChunksCarryTheRoleFirstAndTheFinishReasonLast() {
    assertThat(OpenAiFormat.chunk(CHAT, " the", true, null))
        .isEqualTo(
            "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":7,"
                + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
                + "\"content\":\" the\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    assertThat(OpenAiFormat.chunk(CHAT, " end", false, "length"))
        .contains("\"delta\":{\"content\":\" end\"}")
        .contains("\"finish_reason\":\"length\",\"stop_reason\":null");
  }

  @Test
  void completionChunksAreTextCompletions() {
    assertThat(OpenAiFormat.chunk(TEXT, " a", true, null))
        .isEqualTo(
            "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":7,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"text\":\" a\",\"logprobs\":null,"
                + "\"finish_reason\":null}]}\n\n");
  }

  @Test
  void usageReportsCachedTokens() {
    assertThat(OpenAiFormat.usageChunk(CHAT, OpenAiFormat.usage(10, 3, 8, true)))
        .isEqualTo(
            "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":7,"
                + "\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,"
                + "\"total_tokens\":13,\"completion_tokens\":3,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":8}}}\n\n");
  }

  @Test
  void withDetailsAZeroHitIsReportedAsZero() {
    // vLLM 0.33.0 counts cached tokens from 0, so with the flag a miss still reports 0.
    assertThat(OpenAiFormat.response(CHAT, " hi", "length", OpenAiFormat.usage(4, 1, 0, true)))
        .contains("\"prompt_tokens_details\":{\"cached_tokens\":0}");
    assertThat(OpenAiFormat.usageChunk(CHAT, OpenAiFormat.usage(4, 1, 0, true)))
        .contains("\"prompt_tokens_details\":{\"cached_tokens\":0}");
  }

  @Test
  void withoutDetailsAResponseHasNullDetailsAndTheUsageChunkNone() {
    // Without --enable-prompt-tokens-details: the whole response dumps the unset field as null,
    // the usage chunk (no choices) leaves null fields out; the hit is never reported.
    String whole = OpenAiFormat.response(CHAT, " hi", "length", OpenAiFormat.usage(4, 1, 3, false));
    assertThat(whole)
        .contains("\"completion_tokens\":1,\"prompt_tokens_details\":null}")
        .doesNotContain("cached_tokens");
    assertThat(OpenAiFormat.usageChunk(TEXT, OpenAiFormat.usage(4, 1, 3, false)))
        .isEqualTo(
            "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":7,"
                + "\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":4,"
                + "\"total_tokens\":5,\"completion_tokens\":1}}\n\n");
  }

  @Test
  void wholeResponses() {
    assertThat(OpenAiFormat.response(CHAT, " hi", "length", OpenAiFormat.usage(1, 1, 0, true)))
        .startsWith("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":7")
        .contains("\"message\":{\"role\":\"assistant\",\"content\":\" hi\"")
        .contains("\"finish_reason\":\"length\"")
        .contains("\"usage\":{\"prompt_tokens\":1,\"total_tokens\":2");
    assertThat(OpenAiFormat.response(TEXT, " hi", "length", OpenAiFormat.usage(1, 1, 0, true)))
        .startsWith("{\"id\":\"cmpl-1\",\"object\":\"text_completion\"")
        .contains("\"text\":\" hi\"");
    assertThat(OpenAiFormat.tokenized(new int[] {1, 2}, 99))
        .isEqualTo("{\"count\":2,\"max_model_len\":99,\"tokens\":[1,2],\"token_strs\":null}");
    assertThat(OpenAiFormat.models("m", 5, 99))
        .contains("\"id\":\"m\"")
        .contains("\"max_model_len\":99");
  }
}
