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
 * A prefill worker's answer is outside input: whatever it is, the outcome is a body or a clear
 * error.
 */
class HandOverBodiesProperties {

  private static final Map<String, Object> REQ = Map.of("model", "m", "prompt", "hi");

  @Property(tries = 2000)
  void anyBytesGiveADecodeBodyOrANamedError(@ForAll("answers") byte[] answer) throws Exception {
    try {
      byte[] out = HandOverBodies.vllmDecode(REQ, answer, "p0");
      Map<?, ?> parsed = (Map<?, ?>) Json.parse(new String(out, StandardCharsets.UTF_8));
      assertThat(parsed.get("kv_transfer_params")).isInstanceOf(Map.class);
      assertThat(parsed.get("prompt")).isEqualTo("hi");
    } catch (IllegalStateException e) {
      assertThat(e.getMessage()).startsWith("prefill worker p0 ");
    }
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
    return Arbitraries.oneOf(random, mutated, valid);
  }
}
