package io.infera.router.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void keepsKeyOrderAndPythonNumberTypes() throws Exception {
    Object v = Json.parse("{\"z\":1,\"a\":1.0,\"m\":[1e5,12345678901234567890,-0.0,null,true]}");
    assertThat(v).isInstanceOf(Map.class);
    Map<?, ?> m = (Map<?, ?>) v;
    assertThat(String.join(",", m.keySet().stream().map(String::valueOf).toList()))
        .isEqualTo("z,a,m");
    assertThat(m.get("z")).isEqualTo(1L);
    assertThat(m.get("a")).isEqualTo(1.0);
    List<?> l = (List<?>) m.get("m");
    assertThat(l.get(0)).isEqualTo(100000.0);
    assertThat(l.get(1)).isEqualTo(new BigInteger("12345678901234567890"));
    assertThat(l.get(3)).isNull();
  }

  @Test
  void malformedInputIsAJsonExceptionWithAPosition() {
    assertThatThrownBy(() -> Json.parse(""))
        .isInstanceOf(JsonException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> Json.parse("{\"a\": }"))
        .isInstanceOf(JsonException.class)
        .hasMessageContaining("line 1");
    assertThatThrownBy(() -> Json.parse("[1] [2]"))
        .isInstanceOf(JsonException.class)
        .hasMessageContaining("after the JSON value");
    assertThatThrownBy(() -> Json.parse("[".repeat(10_000)))
        .isInstanceOf(JsonException.class)
        .hasMessageContaining("too deep");
    assertThatThrownBy(() -> Json.parse(new byte[] {(byte) 0xff, (byte) 0xfe}))
        .isInstanceOf(JsonException.class);
  }

  @Test
  void writeThenParseRoundTrips() throws Exception {
    Object v = Json.parse("{\"s\":\"a\\\"\\n\\u0001é\",\"n\":[1,2.5,-3],\"o\":{}}");
    assertThat(Json.parse(Json.write(v))).isEqualTo(v);
  }

  @Test
  void randomBytesNeverEscapeAsUncheckedExceptions() {
    Random r = new Random(5);
    String seed = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"n\":1.5}";
    for (int i = 0; i < 50_000; i++) {
      byte[] b = seed.getBytes(StandardCharsets.UTF_8);
      int edits = 1 + r.nextInt(3);
      for (int e = 0; e < edits; e++) {
        b[r.nextInt(b.length)] = (byte) r.nextInt(256);
      }
      try {
        Json.parse(b);
      } catch (JsonException expected) {
        assertThat(expected.getMessage()).isNotBlank();
      }
    }
  }
}
