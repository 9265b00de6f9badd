package io.infera.sim.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class BundledTraceTest {

  /** The upstream files' digests, as SOURCE.md beside the resources records them. */
  @ParameterizedTest
  @CsvSource({
    "MOONCAKE_SYNTHETIC, bd070915a98fc0ed264d7cfef2ce746002eb3076a695ec31ba2674c0111ec131",
    "MOONCAKE_CONVERSATION, b8cbb061a85206d729d91cdc2981f43c9e0d99209dce588d3af5f7934408b9df",
  })
  void theResourceIsTheUpstreamFileUnchanged(BundledTrace trace, String sha256) throws Exception {
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    int lines = 0;
    try (BufferedReader in = new BufferedReader(trace.open())) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        d.update((line + "\n").getBytes(StandardCharsets.UTF_8));
        lines++;
      }
    }
    assertThat(HexFormat.of().formatHex(d.digest())).isEqualTo(sha256);
    assertThat(lines).isEqualTo(trace.requests());
  }

  @ParameterizedTest
  @EnumSource(BundledTrace.class)
  void parsesAsATraceWorkload(BundledTrace trace) throws Exception {
    TraceWorkload w = trace.load(TraceWorkload.Options.defaults().withMaxRequests(500));
    assertThat(w.sessions()).hasSize(500);
    assertThat(w.source()).isEqualTo(trace.traceName());
    assertThat(w.stats().idealHitRatio()).isPositive();
    assertThat(BundledTrace.byName(trace.traceName())).isSameAs(trace);
    try (Reader r = trace.open()) {
      assertThat(r.read()).isEqualTo('{');
    }
  }

  @ParameterizedTest
  @CsvSource({"mooncake", "MOONCAKE-SYNTHETIC", "mooncake_synthetic.jsonl", "''"})
  void otherNamesAreNotBundled(String name) {
    assertThat(BundledTrace.byName(name)).isNull();
  }
}
