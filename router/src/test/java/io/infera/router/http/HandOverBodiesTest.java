package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.http.HandOverBodies.WithoutKv;
import io.infera.router.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The request bodies of the disaggregated hand-overs, and bad prefill answers. */
class HandOverBodiesTest {

  private static final Map<String, Object> REQ =
      request(
          "{\"model\":\"m\",\"prompt\":\"hi\",\"max_tokens\":9,\"max_completion_tokens\":9,"
              + "\"min_tokens\":5,\"min_completion_tokens\":4,"
              + "\"stream\":true,\"stream_options\":{\"include_usage\":true}}");

  @SuppressWarnings("unchecked")
  private static Map<String, Object> request(String json) {
    try {
      return (Map<String, Object>) Json.parse(json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> parse(byte[] b) throws Exception {
    return (Map<String, Object>) Json.parse(new String(b, StandardCharsets.UTF_8));
  }

  private static HandOverBodies.Decode decode(Map<String, Object> req, String answer) {
    return HandOverBodies.vllmDecode(req, answer.getBytes(StandardCharsets.UTF_8), "p0");
  }

  @Test
  void sglangGetsTheBootstrapFieldsAndKeepsEverythingElse() throws Exception {
    Map<String, Object> out = parse(HandOverBodies.sglangBootstrap(REQ, "10.0.0.7", 8998, 42L));
    assertThat(out.get("bootstrap_host")).isEqualTo("10.0.0.7");
    assertThat(out.get("bootstrap_port")).isEqualTo(8998L);
    assertThat(out.get("bootstrap_room")).isEqualTo(42L);
    assertThat(out.get("prompt")).isEqualTo("hi");
    assertThat(out.get("stream")).isEqualTo(true);
    assertThat(out.get("min_tokens")).isEqualTo(5L);
  }

  @Test
  void atomPrefillIsOneTokenWithOnlyTheTwoSwitchesAtomReads() throws Exception {
    Map<String, Object> p = parse(HandOverBodies.atomPrefill(REQ));
    assertThat(p.get("kv_transfer_params"))
        .isEqualTo(Map.of("do_remote_decode", true, "do_remote_prefill", false));
    assertThat(p.get("max_tokens")).isEqualTo(1L);
    assertThat(p.get("max_completion_tokens")).isEqualTo(1L);
    assertThat(p.get("stream")).isEqualTo(false);
    assertThat(p).doesNotContainKeys("stream_options", "min_tokens", "min_completion_tokens");
    assertThat(p.get("prompt")).isEqualTo("hi");
  }

  /** The fields ATOM's Mooncake connector puts in a prefill answer (request_finished). */
  private static final String ATOM_ANSWER =
      "{\"id\":\"cmpl-1\",\"choices\":[{\"text\":\"x\"}],\"kv_transfer_params\":{"
          + "\"do_remote_prefill\":true,\"do_remote_decode\":false,"
          + "\"remote_block_ids\":[3,4],\"remote_engine_id\":\"e-1\","
          + "\"remote_host\":\"10.0.0.7\",\"remote_port\":6301,"
          + "\"remote_handshake_port\":6301,\"tp_size\":8,\"dp_rank\":0,"
          + "\"transfer_id\":17,\"first_token_id\":42}}";

  @Test
  void atomDecodeGetsTheAnswersParamsAndThePrefillLayout() throws Exception {
    HandOverBodies.Decode d =
        HandOverBodies.atomDecode(REQ, ATOM_ANSWER.getBytes(StandardCharsets.UTF_8), "p0", 0, 1);
    assertThat(d.withoutKv()).isNull();
    Map<String, Object> out = parse(d.body());
    @SuppressWarnings("unchecked")
    Map<String, Object> kv = (Map<String, Object>) out.get("kv_transfer_params");
    assertThat(kv.get("remote_host")).isEqualTo("10.0.0.7");
    assertThat(kv.get("remote_block_ids")).isEqualTo(java.util.List.of(3L, 4L));
    assertThat(kv.get("transfer_id")).isEqualTo(17L);
    assertThat(kv.get("remote_tp_size")).isEqualTo(8L);
    assertThat(kv.get("remote_dp_rank")).isEqualTo(0L);
    assertThat(kv.get("remote_dp_size")).isEqualTo(1L);
    // The client's request is kept: stream and token limits as asked.
    assertThat(out.get("stream")).isEqualTo(true);
    assertThat(out.get("max_tokens")).isEqualTo(9L);
  }

  @Test
  void atomDecodeKeepsLayoutFieldsTheAnswerAlreadyHasAndFallsBackToThePickedRank()
      throws Exception {
    String answer =
        "{\"kv_transfer_params\":{\"remote_host\":\"h\",\"remote_tp_size\":4,"
            + "\"remote_dp_size\":2,\"dp_rank\":\"x\"}}";
    HandOverBodies.Decode d =
        HandOverBodies.atomDecode(REQ, answer.getBytes(StandardCharsets.UTF_8), "p0", 3, 4);
    @SuppressWarnings("unchecked")
    Map<String, Object> kv = (Map<String, Object>) parse(d.body()).get("kv_transfer_params");
    assertThat(kv.get("remote_tp_size")).isEqualTo(4L);
    assertThat(kv.get("remote_dp_size")).isEqualTo(2L);
    // dp_rank is not a number: the rank the router sent the prefill half to.
    assertThat(kv.get("remote_dp_rank")).isEqualTo(3L);
    assertThat(kv).doesNotContainKey("tp_size");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{}|ABSENT",
        "{\"kv_transfer_params\":null}|NULL",
        "{\"kv_transfer_params\":{}}|EMPTY"
      })
  void atomDecodeWithoutParamsIsTheClientsRequest(String answer, WithoutKv why) throws Exception {
    HandOverBodies.Decode d =
        HandOverBodies.atomDecode(REQ, answer.getBytes(StandardCharsets.UTF_8), "p0", 0, 1);
    assertThat(d.withoutKv()).isEqualTo(why);
    assertThat(parse(d.body())).doesNotContainKey("kv_transfer_params");
  }

  @Test
  void vllmPrefillIsOneTokenWithoutStreamAndDecodeGetsTheKvParams() throws Exception {
    Map<String, Object> p = parse(HandOverBodies.vllmPrefill(REQ));
    assertThat(p.get("max_tokens")).isEqualTo(1L);
    assertThat(p.get("max_completion_tokens")).isEqualTo(1L);
    assertThat(p.get("stream")).isEqualTo(false);
    assertThat(p.containsKey("stream_options")).isFalse();
    HandOverBodies.Decode d =
        decode(REQ, "{\"choices\":[],\"kv_transfer_params\":{\"remote_engine_id\":\"e1\"}}");
    assertThat(d.withoutKv()).isNull();
    Map<String, Object> out = parse(d.body());
    assertThat(out.get("max_tokens")).isEqualTo(9L);
    assertThat(out.get("stream")).isEqualTo(true);
    assertThat(((Map<?, ?>) out.get("kv_transfer_params")).get("remote_engine_id")).isEqualTo("e1");
  }

  @Test
  void minTokensLeaveThePrefillCopyAndTheDecodeHalfKeepsTheClientsValues() throws Exception {
    // Above the copy's one token they would make vLLM refuse it (min_tokens <= max_tokens).
    Map<String, Object> p = parse(HandOverBodies.vllmPrefill(REQ));
    assertThat(p).doesNotContainKeys("min_tokens", "min_completion_tokens");
    Map<String, Object> d =
        parse(decode(REQ, "{\"kv_transfer_params\":{\"remote_host\":\"h\"}}").body());
    assertThat(d.get("min_tokens")).isEqualTo(5L);
    assertThat(d.get("min_completion_tokens")).isEqualTo(4L);
    assertThat(d.get("max_completion_tokens")).isEqualTo(9L);
    // Absent in the request: absent in both halves (never restored as null).
    Map<String, Object> plain = request("{\"prompt\":\"hi\",\"max_tokens\":3}");
    assertThat(parse(HandOverBodies.vllmPrefill(plain)))
        .doesNotContainKeys("min_tokens", "min_completion_tokens", "max_completion_tokens");
    assertThat(parse(decode(plain, "{\"kv_transfer_params\":{\"a\":1}}").body()))
        .doesNotContainKeys("min_tokens", "min_completion_tokens");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"kv_transfer_params\":null}                   | NULL",
        "{\"choices\":[],\"kv_transfer_params\":null}    | NULL",
        "{\"choices\":[{\"finish_reason\":\"stop\"}]}    | ABSENT",
        "{}                                              | ABSENT",
        "{\"kv_transfer_params\":{}}                     | EMPTY",
        "  {\"kv_transfer_params\" : null }              | NULL"
      })
  void aPrefillAnswerWithoutKvParamsGoesToDecodeWithTheClientsBody(String answer, WithoutKv why)
      throws Exception {
    HandOverBodies.Decode d = decode(REQ, answer.strip());
    assertThat(d.withoutKv()).isEqualTo(why);
    assertThat(parse(d.body())).isEqualTo(REQ);
  }

  @Test
  void theClientsOwnKvParamsNeverReachDecode() throws Exception {
    Map<String, Object> req =
        request("{\"prompt\":\"hi\",\"kv_transfer_params\":{\"remote_host\":\"evil\"}}");
    Map<String, Object> p = parse(HandOverBodies.vllmPrefill(req));
    assertThat(((Map<?, ?>) p.get("kv_transfer_params")).get("remote_host")).isNull();
    HandOverBodies.Decode none = decode(req, "{\"kv_transfer_params\":null}");
    assertThat(parse(none.body())).doesNotContainKey("kv_transfer_params");
    HandOverBodies.Decode some = decode(req, "{\"kv_transfer_params\":{\"remote_host\":\"p\"}}");
    assertThat(((Map<?, ?>) parse(some.body()).get("kv_transfer_params")).get("remote_host"))
        .isEqualTo("p");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "{",
        "[]",
        "null",
        "true",
        "42",
        "\"kv_transfer_params\"",
        "{\"kv_transfer_params\":{}",
        "{\"kv_transfer_params\":{}} trailing",
        "\u0000\u0001\u0002"
      })
  void aPrefillAnswerThatIsNotAJsonObjectIsAClearError(String answer) {
    assertThatThrownBy(() -> decode(REQ, answer))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("prefill worker p0 ");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "[1]",
        "[]",
        "\"x\"",
        "\"\"",
        "0",
        "-1.5e3",
        "true",
        "false",
        "[{\"remote_host\":\"h\"}]"
      })
  void kvParamsOfAnyOtherJsonTypeAreAnUpstreamError(String kv) {
    assertThatThrownBy(() -> decode(REQ, "{\"kv_transfer_params\":" + kv + "}"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("prefill worker p0 ")
        .hasMessageContaining("not an object");
  }

  @Test
  void hostileAnswersAreErrorsOrBodiesNeverAnotherException() throws Exception {
    // Nesting past the JSON reader's depth limit: a named error, not a StackOverflowError.
    String deep = "{\"kv_transfer_params\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
    assertThatThrownBy(() -> decode(REQ, deep))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("prefill worker p0 ");
    // A large but valid answer (the size limit is the reader's, before parsing): the params pass.
    String big =
        "{\"choices\":[{\"text\":\""
            + "x".repeat(900_000)
            + "\"}],\"kv_transfer_params\":{\"remote_block_ids\":[1,2]}}";
    HandOverBodies.Decode d = decode(REQ, big);
    assertThat(d.withoutKv()).isNull();
    assertThat(((Map<?, ?>) parse(d.body()).get("kv_transfer_params")).get("remote_block_ids"))
        .isEqualTo(java.util.List.of(1L, 2L));
    // Invalid UTF-8 around valid JSON is replaced, never thrown.
    byte[] bad = {'{', '"', (byte) 0xff, '"', ':', '1', '}'};
    assertThat(HandOverBodies.vllmDecode(REQ, bad, "p0").withoutKv()).isEqualTo(WithoutKv.ABSENT);
  }

  @Test
  void theClientsBodyIsNotChanged() {
    Map<String, Object> before = request(Json.write(REQ));
    HandOverBodies.vllmPrefill(REQ);
    decode(REQ, "{\"kv_transfer_params\":{\"a\":1}}");
    HandOverBodies.sglangBootstrap(REQ, "h", 1, 1);
    assertThat(REQ).isEqualTo(before);
  }

  @Test
  void theReasonsAreTheMetricLabels() {
    assertThat(WithoutKv.values())
        .extracting(WithoutKv::label)
        .containsExactly("null", "absent", "empty");
  }
}
