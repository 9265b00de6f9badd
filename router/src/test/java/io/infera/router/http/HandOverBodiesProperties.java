package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A prefill worker's answer is outside input: whatever it is, the outcome is a decode body (with
 * the worker's KV params, or without them and a reason) or a clear error.
 */
class HandOverBodiesProperties {

  private static final Map<String, Object> REQ =
      Map.of("model", "m", "prompt", "hi", "min_tokens", 3L);

  @Property(tries = 2000)
  void anyBytesGiveADecodeBodyOrANamedError(@ForAll("answers") byte[] answer) throws Exception {
    try {
      HandOverBodies.Decode d = HandOverBodies.vllmDecode(REQ, answer, "p0");
      @SuppressWarnings("unchecked")
      Map<String, Object> parsed =
          (Map<String, Object>) Json.parse(new String(d.body(), StandardCharsets.UTF_8));
      if (d.withoutKv() == null) {
        assertThat(parsed.get("kv_transfer_params")).isInstanceOf(Map.class);
        assertThat((Map<?, ?>) parsed.get("kv_transfer_params")).isNotEmpty();
      } else {
        assertThat(parsed).doesNotContainKey("kv_transfer_params");
      }
      assertThat(parsed.get("prompt")).isEqualTo("hi");
      assertThat(parsed.get("min_tokens")).isEqualTo(3L);
    } catch (IllegalStateException e) {
      assertThat(e.getMessage()).startsWith("prefill worker p0 ");
    }
  }

  @Property(tries = 2000)
  void anyBytesGiveAnAtomDecodeBodyOrANamedError(@ForAll("answers") byte[] answer)
      throws Exception {
    try {
      HandOverBodies.Decode d = HandOverBodies.atomDecode(REQ, answer, "p0", 0, 1);
      @SuppressWarnings("unchecked")
      Map<String, Object> parsed =
          (Map<String, Object>) Json.parse(new String(d.body(), StandardCharsets.UTF_8));
      if (d.withoutKv() == null) {
        Map<String, Object> kv = cast(parsed.get("kv_transfer_params"));
        // Whatever else the worker said, the decode side learns the prefill layout.
        assertThat(kv).containsKey("remote_dp_rank").containsKey("remote_dp_size");
      } else {
        assertThat(parsed).doesNotContainKey("kv_transfer_params");
      }
      assertThat(parsed.get("prompt")).isEqualTo("hi");
    } catch (IllegalStateException e) {
      assertThat(e.getMessage()).startsWith("prefill worker p0 ");
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Object o) {
    return (Map<String, Object>) o;
  }

  @Property(tries = 500)
  void kvParamsOfEveryJsonTypeAreForwardedSkippedOrRefused(@ForAll("jsonValues") String kv)
      throws Exception {
    byte[] answer = ("{\"kv_transfer_params\":" + kv + "}").getBytes(StandardCharsets.UTF_8);
    Object value = Json.parse(kv);
    if (value instanceof Map<?, ?> m) {
      HandOverBodies.Decode d = HandOverBodies.vllmDecode(REQ, answer, "p0");
      assertThat(d.withoutKv()).isEqualTo(m.isEmpty() ? HandOverBodies.WithoutKv.EMPTY : null);
    } else if (value == null) {
      assertThat(HandOverBodies.vllmDecode(REQ, answer, "p0").withoutKv())
          .isEqualTo(HandOverBodies.WithoutKv.NULL);
    } else {
      try {
        HandOverBodies.vllmDecode(REQ, answer, "p0");
        throw new AssertionError("accepted kv_transfer_params " + kv);
      } catch (IllegalStateException e) {
        assertThat(e.getMessage()).contains("not an object");
      }
    }
  }

  @Provide
  Arbitrary<String> jsonValues() {
    Arbitrary<String> scalars =
        Arbitraries.oneOf(
            Arbitraries.just("null"),
            Arbitraries.of("true", "false"),
            Arbitraries.integers().map(String::valueOf),
            Arbitraries.doubles().map(String::valueOf),
            Arbitraries.strings().alpha().ofMaxLength(8).map(Json::write));
    return Arbitraries.recursive(
        () -> scalars,
        inner ->
            Arbitraries.oneOf(
                inner.list().ofMaxSize(3).map(l -> "[" + String.join(",", l) + "]"),
                inner
                    .list()
                    .ofMaxSize(3)
                    .map(
                        l -> {
                          StringBuilder sb = new StringBuilder("{");
                          for (int i = 0; i < l.size(); i++) {
                            sb.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":");
                            sb.append(l.get(i));
                          }
                          return sb.append('}').toString();
                        })),
        3);
  }

  @Provide
  Arbitrary<byte[]> answers() {
    Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(64);
    Arbitrary<byte[]> mutated =
        Arbitraries.strings()
            .withChars("{}[]\":,0123456789.eE-+ntrufals\\kv_transfer_params")
            .ofMaxLength(80)
            .map(s -> s.getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> valid =
        Arbitraries.strings()
            .alpha()
            .ofMaxLength(12)
            .map(
                id ->
                    ("{\"kv_transfer_params\":{\"remote_engine_id\":\"" + id + "\"}}")
                        .getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> typed =
        jsonValues()
            .map(v -> ("{\"kv_transfer_params\":" + v + "}").getBytes(StandardCharsets.UTF_8));
    return Arbitraries.oneOf(random, mutated, valid, typed);
  }
}
