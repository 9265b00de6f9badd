package io.infera.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.json.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class BenchCommandTest {

  @TempDir Path dir;

  record Outcome(int code, String out, String err) {}

  static Outcome run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = InferaSim.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Outcome(code, out.toString(), err.toString());
  }

  @Test
  void virtualTimeBenchWritesTheReportFolder() throws Exception {
    Path out = dir.resolve("r");
    Outcome o =
        run(
            "bench",
            "--workload=shared-prefix",
            "--workers=2",
            "--blocks-per-worker=256",
            "--requests=60",
            "--seeds=3",
            "--virtual-time",
            "--policies=kv-aware,round-robin,oracle",
            "--out=" + out);
    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.out()).contains("kv-aware").contains("round-robin").contains("oracle");
    for (String f :
        List.of("results.json", "report.md", "requests.csv", "ttft_cdf.png", "worker_share.png")) {
      assertThat(out.resolve(f)).isNotEmptyFile();
    }
    List<?> arms = (List<?>) Json.parse(Files.readString(out.resolve("results.json")));
    assertThat(arms).hasSize(3);
    List<String> policies = new ArrayList<>();
    for (Object a : arms) {
      Map<?, ?> arm = (Map<?, ?>) a;
      policies.add((String) arm.get("policy"));
      assertThat(new ArrayList<Object>(arm.keySet()))
          .contains(
              (Object[])
                  new String[] {
                    "policy",
                    "requests",
                    "errors",
                    "ttft_p50_ms",
                    "ttft_p90_ms",
                    "ttft_p99_ms",
                    "throughput_tok_s",
                    "hit_ratio",
                    "hit_ratio_vs_oracle",
                    "max_min_share"
                  });
      assertThat(((Number) arm.get("seeds")).intValue()).isEqualTo(3);
      assertThat(((Number) arm.get("errors")).intValue()).isZero();
    }
    assertThat(policies).containsExactly("kv-aware", "round-robin", "oracle");
    assertThat(((Number) ((Map<?, ?>) arms.get(2)).get("hit_ratio_vs_oracle")).doubleValue())
        .isEqualTo(1.0);
  }

  @Test
  void traceReplayRunsInVirtualTime() throws Exception {
    Path trace = dir.resolve("t.jsonl");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      // Two shared 512-token blocks, then one of its own.
      sb.append(
          String.format(
              "{\"timestamp\": %d, \"input_length\": 1400, \"output_length\": 8,"
                  + " \"hash_ids\": [1, 2, %d]}%n",
              i * 50, 100 + i));
    }
    Files.writeString(trace, sb);
    Path out = dir.resolve("t");
    Outcome o =
        run(
            "bench",
            "--trace=" + trace,
            "--workers=2",
            "--seeds=3",
            "--virtual-time",
            "--policies=kv-aware,oracle",
            "--out=" + out);
    assertThat(o.code()).as(o.err()).isZero();
    List<?> arms = (List<?>) Json.parse(Files.readString(out.resolve("results.json")));
    Map<?, ?> kv = (Map<?, ?>) arms.get(0);
    assertThat(((Number) kv.get("requests")).intValue()).isEqualTo(120);
    assertThat(((Number) kv.get("hit_ratio")).doubleValue()).isGreaterThan(0.5);
  }

  @Test
  void bundledTraceAndReferenceArmsReportRegret() throws Exception {
    Path out = dir.resolve("b");
    Outcome o =
        run(
            "bench",
            "--trace=mooncake-synthetic",
            "--requests=40",
            "--trace-speedup=4",
            "--workers=2",
            "--blocks-per-worker=4096",
            "--seeds=2",
            "--virtual-time",
            "--policies=kv-aware,hit-max,kv-aware@0.5,kv-aware@8",
            "--out=" + out);
    assertThat(o.code()).as(o.err()).isZero();
    List<?> arms = (List<?>) Json.parse(Files.readString(out.resolve("results.json")));
    assertThat(arms).hasSize(4);
    List<String> policies = new ArrayList<>();
    for (Object a : arms) {
      Map<?, ?> arm = (Map<?, ?>) a;
      policies.add((String) arm.get("policy"));
      assertThat(((Number) arm.get("requests")).intValue()).isEqualTo(80);
      assertThat(((Number) arm.get("ttft_mean_ms")).doubleValue()).isPositive();
      assertThat(arm.get("regret_ttft_p50")).isInstanceOf(Number.class);
      assertThat(arm.get("regret_ttft_mean")).isInstanceOf(Number.class);
      assertThat((String) arm.get("best_static_arm")).isIn("kv-aware@0.5", "kv-aware@8");
      assertThat((String) arm.get("regret_reference_p50"))
          .isIn("kv-aware@0.5", "kv-aware@8", "hit-max");
    }
    assertThat(policies).containsExactly("kv-aware", "hit-max", "kv-aware@0.5", "kv-aware@8");
    // Each metric's reference has zero regret on it; nothing beats the reference set.
    Map<?, ?> first = (Map<?, ?>) arms.get(0);
    for (Object a : arms) {
      Map<?, ?> arm = (Map<?, ?>) a;
      double p50 = ((Number) arm.get("regret_ttft_p50")).doubleValue();
      if (arm.get("policy").equals(first.get("regret_reference_p50"))) {
        assertThat(p50).isZero();
      } else if (!arm.get("policy").equals("kv-aware")) {
        assertThat(p50).isGreaterThanOrEqualTo(0);
      }
    }
    assertThat(Files.readString(out.resolve("report.md")))
        .contains("## Regret")
        .contains("| workload | trace mooncake-synthetic |");
    assertThat(o.out()).contains("regret p50");
  }

  @Test
  void toolAgentWorkloadRuns() throws Exception {
    Path out = dir.resolve("ta");
    Outcome o =
        run(
            "bench",
            "--workload=tool-agent",
            "--workers=2",
            "--requests=6",
            "--seeds=1",
            "--virtual-time",
            "--policies=kv-aware,round-robin",
            "--out=" + out);
    assertThat(o.code()).as(o.err()).isZero();
    List<?> arms = (List<?>) Json.parse(Files.readString(out.resolve("results.json")));
    // 6 agents of 8 steps each.
    assertThat(((Number) ((Map<?, ?>) arms.get(0)).get("requests")).intValue()).isEqualTo(48);
    assertThat(((Number) ((Map<?, ?>) arms.get(0)).get("errors")).intValue()).isZero();
    // No reference arm ran: regret is undefined, not 0.
    Map<?, ?> kvArm = (Map<?, ?>) arms.get(0);
    assertThat(kvArm.containsKey("regret_ttft_p50")).isTrue();
    assertThat(kvArm.get("regret_ttft_p50")).isNull();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--workload=bogus --virtual-time|unknown 'bogus'",
        "--workload=no-reuse --policies=fastest --virtual-time|--policies",
        "--workload=no-reuse --seeds=0 --virtual-time|must be positive",
        "--workload=no-reuse --rate=-1 --virtual-time|--rate must be",
        "--workload=no-reuse --requests=0 --virtual-time|--requests must be",
        "--workload=shared-prefix --kv-fraction=0 --virtual-time|--kv-fraction must be",
        "--workload=no-reuse --overlap-weight=-1 --virtual-time|--overlap-weight",
        "--trace=/nonexistent/x.jsonl --virtual-time|no such file",
        "--trace=mooncake-nonexistent --virtual-time|bundled traces: mooncake-synthetic",
        "--workload=no-reuse --policies=kv-aware@fast --virtual-time|not a number",
        "--workload=no-reuse --policies=kv-aware@-1 --virtual-time|finite number >= 0",
        "--workload=no-reuse --policies=kv-aware@NaN --virtual-time|finite number >= 0",
        "--workload=no-reuse --policies=kv-aware@Infinity --virtual-time|finite number >= 0",
        "--workload=no-reuse --policies=sweep,kv-aware@4 --virtual-time|given twice",
        "--workload=multimodal|--virtual-time only",
        "--virtual-time|Missing required argument"
      })
  void badInputExitsWithAUsageErrorAndNoStackTrace(String args, String message) {
    List<String> argv = new ArrayList<>(List.of("bench"));
    argv.addAll(List.of(args.split(" ")));
    argv.add("--out=" + dir.resolve("x"));
    Outcome o = run(argv.toArray(String[]::new));
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains(message).doesNotContain("\tat ").doesNotContain("Exception");
    assertThat(dir.resolve("x")).doesNotExist();
  }

  @Test
  void malformedTraceNamesTheLine() throws Exception {
    Path trace = dir.resolve("bad.jsonl");
    Files.writeString(
        trace,
        "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 1, \"hash_ids\": [1]}\n"
            + "{\"timestamp\": 1, \"input_length\": -5, \"output_length\": 1, \"hash_ids\": [1]}\n");
    Outcome o = run("bench", "--trace=" + trace, "--virtual-time", "--out=" + dir.resolve("x"));
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains("bad.jsonl, line 2").contains("input_length");
  }
}
