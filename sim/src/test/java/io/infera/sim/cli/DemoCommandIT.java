package io.infera.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.json.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code infera-sim demo}, shrunk: engines, router, both policies, the report folder. */
class DemoCommandIT {

  @TempDir Path dir;

  @Test
  void demoComparesRoundRobinWithKvAwareAndWritesTheReport() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = InferaSim.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    Path report = dir.resolve("demo");
    int code =
        cl.execute(
            "demo", "--conversations=8", "--turns=3", "--speedup=4", "--out=" + report.toString());
    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("round-robin")
        .contains("kv-aware vs round-robin: TTFT p50")
        .contains("report: ");
    for (String f :
        List.of("results.json", "report.md", "requests.csv", "ttft_cdf.png", "worker_share.png")) {
      assertThat(report.resolve(f)).isNotEmptyFile();
    }
    List<?> arms = (List<?>) Json.parse(Files.readString(report.resolve("results.json")));
    assertThat(arms).hasSize(2);
    for (Object a : arms) {
      Map<?, ?> arm = (Map<?, ?>) a;
      assertThat(((Number) arm.get("requests")).intValue()).isEqualTo(24);
      assertThat(((Number) arm.get("errors")).intValue()).isZero();
    }
    Map<?, ?> kv = (Map<?, ?>) arms.get(1);
    assertThat(kv.get("policy")).isEqualTo("kv-aware");
    // Conversations come back to their engine: most prompt tokens after turn 0 are cached.
    assertThat(((Number) kv.get("hit_ratio")).doubleValue()).isGreaterThan(0.3);
    assertThat(Files.readString(report.resolve("report.md"))).contains("kv-aware");
  }

  @Test
  void badFlagsExitWithAUsageError() {
    StringWriter err = new StringWriter();
    CommandLine cl = InferaSim.commandLine();
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(new StringWriter()));
    assertThat(cl.execute("demo", "--conversations=0", "--out=" + dir.resolve("x"))).isEqualTo(2);
    assertThat(err.toString()).contains("--conversations");
    assertThat(dir.resolve("x")).doesNotExist();
  }
}
