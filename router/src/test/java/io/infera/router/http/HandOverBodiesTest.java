package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The request bodies of the disaggregated hand-overs, and bad prefill answers. */
class HandOverBodiesTest {

  private static final Map<String, Object> REQ = request();

  @SuppressWarnings("unchecked")
  private static Map<String, Object> request() {
    try {
      return (Map<String, Object>)
          Json.parse(
              "{\"model\":\"m\",\"prompt\":\"hi\",\"max_tokens\":9,\"max_completion_tokens\":9,"
                  + "\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<?, ?> parse(byte[] b) throws Exception {
    return (Map<?, ?>) Json.parse(new String(b, StandardCharsets.UTF_8));
  }

  @Test
  void sglangGetsTheBootstrapFieldsAndKeepsEverythingElse() throws Exception {
    Map<?, ?> out = parse(HandOverBodies.sglangBootstrap(REQ, "10.0.0.7", 8998, 42L));
    assertThat(out.get("bootstrap_host")).isEqualTo("10.0.0.7");
    assertThat(out.get("bootstrap_port")).isEqualTo(8998L);
    assertThat(out.get("bootstrap_room")).isEqualTo(42L);
    assertThat(out.get("prompt")).isEqualTo("hi");
    assertThat(out.get("stream")).isEqualTo(true);
  }

  @Test
  void vllmPrefillIsOneTokenWithoutStreamAndDecodeGetsTheKvParams() throws Exception {
    Map<?, ?> p = parse(HandOverBodies.vllmPrefill(REQ));
    assertThat(p.get("max_tokens")).isEqualTo(1L);
    assertThat(p.get("max_completion_tokens")).isEqualTo(1L);
    assertThat(p.get("stream")).isEqualTo(false);
    assertThat(p.containsKey("stream_options")).isFalse();
    String answer = "{\"choices\":[],\"kv_transfer_params\":{\"remote_engine_id\":\"e1\"}}";
    Map<?, ?> d =
        parse(HandOverBodies.vllmDecode(REQ, answer.getBytes(StandardCharsets.UTF_8), "p0"));
    assertThat(d.get("max_tokens")).isEqualTo(9L);
    assertThat(d.get("stream")).isEqualTo(true);
    assertThat(((Map<?, ?>) d.get("kv_transfer_params")).get("remote_engine_id")).isEqualTo("e1");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "{",
        "[]",
        "null",
        "{\"choices\":[]}",
        "{\"kv_transfer_params\":null}",
        "{\"kv_transfer_params\":[1]}",
        "{\"kv_transfer_params\":\"x\"}"
      })
  void aPrefillAnswerWithoutKvParamsIsAClearError(String answer) {
    assertThatThrownBy(
            () -> HandOverBodies.vllmDecode(REQ, answer.getBytes(StandardCharsets.UTF_8), "p0"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("prefill worker p0 ");
  }

  @Test
  void theClientsBodyIsNotChanged() {
    HandOverBodies.vllmPrefill(REQ);
    HandOverBodies.sglangBootstrap(REQ, "h", 1, 1);
    assertThat(REQ.get("max_tokens")).isEqualTo(9L);
    assertThat(REQ).doesNotContainKey("bootstrap_room");
  }
}
