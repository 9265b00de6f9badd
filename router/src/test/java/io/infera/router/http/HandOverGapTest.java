package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.routing.RequestAnalyzer.Endpoint;
import org.junit.jupiter.api.Test;

/** Which endpoints have a prefill/decode hand-over on which engine. */
class HandOverGapTest {

  @Test
  void chatAndCompletionsHaveOneOnBothEnginesMessagesOnlyOnVllmResponsesOnNeither() {
    for (String engine : new String[] {"vllm", "sglang"}) {
      assertThat(DisaggregatedDispatch.handOverGap(Endpoint.CHAT, engine)).isNull();
      assertThat(DisaggregatedDispatch.handOverGap(Endpoint.COMPLETIONS, engine)).isNull();
      assertThat(DisaggregatedDispatch.handOverGap(Endpoint.RESPONSES, engine))
          .contains("/v1/responses")
          .contains("use mixed pools");
    }
    assertThat(DisaggregatedDispatch.handOverGap(Endpoint.MESSAGES, "vllm")).isNull();
    assertThat(DisaggregatedDispatch.handOverGap(Endpoint.MESSAGES, "sglang"))
        .contains("sglang")
        .contains("/v1/messages");
  }
}
