package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.parity.ParityStatus;
import io.infera.router.parity.ProbeCase;
import io.infera.router.parity.WorkerParity;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RoutingMetrics;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TestTokenizers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The prober's pure parts: the router's side of the probe set and what refusals mean. */
class RenderParityProberTest {

  private static final String MODEL = "Qwen/Qwen3-0.6B";

  private static List<RenderParityProber.Local> local() throws Exception {
    RouterConfig config =
        ConfigLoader.parse(
            "model: "
                + MODEL
                + "\ntokenizer: {path: 'builtin:qwen3'}\n"
                + "discovery: {workers: [{id: w0, url: 'http://127.0.0.1:9001'}]}\n");
    PromptTokenizer tok = TestTokenizers.qwen3();
    return RenderParityProber.localCases(
        new RequestAnalyzer(config, tok, new RoutingMetrics()), tok, MODEL);
  }

  @Test
  void theRouterRendersEveryCanonicalCase() throws Exception {
    List<RenderParityProber.Local> cases = local();
    assertThat(cases)
        .extracting(c -> c.probe().name())
        .containsExactlyElementsOf(
            ProbeCase.canonical(MODEL).stream().map(ProbeCase::name).toList());
    for (RenderParityProber.Local c : cases) {
      assertThat(c.ids()).as(c.probe().name()).isNotEmpty().hasSizeLessThan(200);
    }
    // The tool call reaches the template: its rendering names the function and the result.
    String toolCall = TestTokenizers.qwen3().tokenizer().decode(cases.get(2).ids());
    assertThat(toolCall).contains("get_weather").contains("18 C, cloudy");
  }

  @Test
  void probeBodiesAreTheFormsTheEnginesTake() throws Exception {
    RenderParityProber.Local chat = local().get(0);
    Map<String, Object> vllm = EngineTokenizer.tokenizeRequest(chat.analyzed(), "vllm");
    assertThat(vllm).containsKeys("model", "messages").containsEntry("add_special_tokens", false);
    Map<String, Object> sglang = EngineTokenizer.tokenizeRequest(chat.analyzed(), "sglang");
    assertThat(sglang).containsKey("messages").doesNotContainKey("add_generation_prompt");
    RenderParityProber.Local text = local().get(local().size() - 1);
    assertThat(EngineTokenizer.tokenizeRequest(text.analyzed(), "vllm"))
        .containsEntry("add_special_tokens", true)
        .containsKey("prompt");
  }

  @ParameterizedTest
  @CsvSource({
    "404, UNSUPPORTED, serves none",
    "405, UNSUPPORTED, serves none",
    "501, UNSUPPORTED, serves none",
    "400, UNSUPPORTED, messages form",
    "422, UNSUPPORTED, messages form",
    "500, FAILED, answered 500",
    "503, FAILED, answered 503"
  })
  void refusals(int status, ParityStatus expected, String text) throws Exception {
    RenderParityProber.Local chat = local().get(0);
    WorkerParity v =
        RenderParityProber.notCompared(
            RenderParityProber.refusal(
                status, chat, "{\"error\":\"x\"}".getBytes(StandardCharsets.UTF_8)));
    assertThat(v.status()).isEqualTo(expected);
    assertThat(v.detail()).contains(text);
    assertThat(v.distrusts(true)).isFalse();
  }

  @Test
  void failuresNameTheirSetting() {
    assertThat(RenderParityProber.notCompared(new TimeoutException()).detail())
        .contains("tokenizer.parity.timeoutMs");
    assertThat(RenderParityProber.notCompared(new Upstream.TooLong(10)).detail())
        .contains("tokenizer.parity.maxAnswerBytes");
    assertThat(
            RenderParityProber.notCompared(
                    new IllegalStateException("/tokenize answer has no tokens"))
                .detail())
        .contains("no tokens");
    WorkerParity huge =
        RenderParityProber.notCompared(new IllegalStateException("x".repeat(10_000)));
    assertThat(huge.detail().length()).isLessThan(250);
  }

  @Test
  void aHugeErrorBodyIsCutInTheDetail() throws Exception {
    RenderParityProber.Local chat = local().get(0);
    WorkerParity v =
        RenderParityProber.notCompared(
            RenderParityProber.refusal(
                400, chat, "y".repeat(100_000).getBytes(StandardCharsets.UTF_8)));
    assertThat(v.detail().length()).isLessThan(400);
  }
}
