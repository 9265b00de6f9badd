package io.infera.sim.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infera.router.json.Json;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {

  private static final List<String> FLEET = List.of("w0", "w1", "w2", "w3");

  /** Three arms: kv-aware starves w3, round-robin spreads evenly, the oracle hits most. */
  private static List<RequestResult> results() {
    Random r = new Random(7);
    List<RequestResult> all = new ArrayList<>();
    for (String policy : List.of("kv-aware", "round-robin", "oracle")) {
      for (int seed = 0; seed < 2; seed++) {
        for (int i = 0; i < 200; i++) {
          int workers = policy.equals("kv-aware") ? 3 : 4;
          double ttft = Math.exp(r.nextGaussian() + (policy.equals("round-robin") ? 4 : 3));
          int cached = policy.equals("oracle") ? 800 : policy.equals("kv-aware") ? 600 : 200;
          all.add(
              RequestResult.ok(
                  policy,
                  seed,
                  "s" + i,
                  0,
                  "w" + (i % workers),
                  i,
                  ttft,
                  ttft + 200,
                  List.of(4.0, 5.0, 6.0),
                  1000,
                  cached,
                  32));
        }
      }
    }
    all.add(RequestResult.failed("round-robin", 0, "s-x", 0, null, 3, RequestResult.REJECTED));
    return all;
  }

  @Test
  void writesJsonMarkdownCsvAndCharts(@TempDir Path dir) throws Exception {
    List<RequestResult> all = results();
    List<ArmSummary> arms = Summaries.summarizeAll(all, 10_000, FLEET);
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("workload", "shared-prefix");
    params.put("workers", 4);
    Path out = dir.resolve("nested/report");

    ReportWriter.write(out, "Routing quality | smoke", params, arms, all);

    // results.json: one object per arm, snake_case keys, values as summarised.
    Object parsed = Json.parse(Files.readString(out.resolve("results.json")));
    assertThat(parsed).isInstanceOf(List.class);
    List<?> list = (List<?>) parsed;
    assertThat(list).hasSize(3);
    @SuppressWarnings("unchecked")
    Map<String, Object> kv = (Map<String, Object>) list.get(0);
    assertThat(kv.keySet())
        .containsExactly(
            "policy",
            "seeds",
            "requests",
            "errors",
            "rejections",
            "ttft_p50_ms",
            "ttft_p90_ms",
            "ttft_p99_ms",
            "ttft_mean_ms",
            "itl_p50_ms",
            "itl_p99_ms",
            "throughput_tok_s",
            "hit_ratio",
            "hit_ratio_vs_oracle",
            "max_min_share",
            "per_worker_requests",
            "ttft_p50_seed_mean_ms",
            "ttft_mean_seed_mean_ms",
            "regret_ttft_p50",
            "regret_ttft_mean",
            "regret_reference_p50",
            "regret_reference_mean",
            "best_static_arm",
            "mm_requests",
            "mm_images",
            "mm_repeat_images",
            "mm_repeat_to_warm",
            "mm_repeat_to_warm_ratio",
            "mm_router_affinity_hits");
    ArmSummary a = arms.get(0);
    assertThat(kv.get("policy")).isEqualTo("kv-aware");
    assertThat(kv.get("seeds")).isEqualTo(2L);
    assertThat(kv.get("requests")).isEqualTo(400L);
    assertThat(kv.get("errors")).isEqualTo(0L);
    assertThat(kv.get("ttft_p50_ms")).isEqualTo(a.ttftP50Ms());
    assertThat(kv.get("ttft_p99_ms")).isEqualTo(a.ttftP99Ms());
    assertThat(kv.get("ttft_mean_ms")).isEqualTo(a.ttftMeanMs());
    assertThat(kv.get("ttft_p50_seed_mean_ms")).isEqualTo(a.ttftP50SeedMeanMs());
    // No sweep or hit-max arm: regret is undefined, not 0.
    assertThat(kv).containsEntry("regret_ttft_p50", null).containsEntry("best_static_arm", null);
    assertThat(kv.get("itl_p99_ms")).isEqualTo(6.0);
    assertThat(kv.get("throughput_tok_s")).isEqualTo(a.throughputTokS());
    assertThat(kv.get("hit_ratio")).isEqualTo(0.6);
    assertThat(a.hitRatioVsOracle()).isCloseTo(0.75, within(1e-12));
    assertThat(kv.get("hit_ratio_vs_oracle")).isEqualTo(a.hitRatioVsOracle());
    // w3 got nothing: ∞ is not JSON, so null.
    assertThat(kv).containsEntry("max_min_share", null);
    assertThat(kv.get("per_worker_requests"))
        .isEqualTo(Map.of("w0", 134L, "w1", 134L, "w2", 132L, "w3", 0L));
    @SuppressWarnings("unchecked")
    Map<String, Object> rr = (Map<String, Object>) list.get(1);
    assertThat(rr.get("rejections")).isEqualTo(1L);
    assertThat(rr.get("errors")).isEqualTo(1L);
    assertThat(rr.get("max_min_share")).isEqualTo(1.0);

    // report.md: title, parameters, the console table, notes.
    String md = Files.readString(out.resolve("report.md"));
    assertThat(md).startsWith("# Routing quality | smoke\n");
    assertThat(md).contains("| workers | 4 |").contains("| workload | shared-prefix |");
    assertThat(md).contains(ReportWriter.table(arms));
    assertThat(md).contains("![TTFT distribution per policy](ttft_cdf.png)");
    assertThat(md).contains("| kv-aware | 134 | 134 | 132 | 0 |");

    // Charts are real PNGs.
    for (String png : List.of("ttft_cdf.png", "worker_share.png")) {
      BufferedImage image = ImageIO.read(out.resolve(png).toFile());
      assertThat(image).as(png).isNotNull();
      assertThat(image.getWidth()).isGreaterThan(100);
      assertThat(image.getHeight()).isGreaterThan(100);
    }

    // requests.csv: a header and one line per request.
    List<String> csv = Files.readAllLines(out.resolve("requests.csv"));
    assertThat(csv).hasSize(all.size() + 1);
    assertThat(csv.get(0)).startsWith("policy,seed,session_id,turn,worker,");
    assertThat(csv.get(csv.size() - 1))
        .isEqualTo("round-robin,0,s-x,0,,3.0,,,0,,0,0,0,true,rejected");
  }

  @Test
  void emptyResultsStillGiveValidFiles(@TempDir Path dir) throws Exception {
    List<ArmSummary> arms = List.of(Summaries.summarize("kv-aware", List.of(), 1_000));
    ReportWriter.write(dir, "empty", Map.of(), arms, List.of());
    assertThat(ImageIO.read(dir.resolve("ttft_cdf.png").toFile())).isNotNull();
    assertThat(ImageIO.read(dir.resolve("worker_share.png").toFile())).isNotNull();
    Map<?, ?> arm =
        (Map<?, ?>) ((List<?>) Json.parse(Files.readString(dir.resolve("results.json")))).get(0);
    assertThat(arm.get("ttft_p50_ms")).isNull();
    assertThat(arm.get("hit_ratio")).isNull();
    assertThat(Json.parse(Files.readString(writeNoArms(dir.resolve("none"))))).isEqualTo(List.of());
  }

  private static Path writeNoArms(Path dir) throws Exception {
    ReportWriter.write(dir, "none", Map.of(), List.of(), List.of());
    return dir.resolve("results.json");
  }

  @Test
  void tableIsFixedWidth() {
    List<ArmSummary> arms = Summaries.summarizeAll(results(), 10_000, FLEET);
    String table = ReportWriter.table(arms);
    List<String> lines = table.lines().toList();
    assertThat(lines).hasSize(2 + arms.size());
    assertThat(lines.get(0))
        .startsWith(
            "policy       requests  errors  rejected  ttft p50 ms  ttft p90 ms  ttft p99 ms")
        .endsWith("hit ratio  vs oracle  max/min share  regret p50  regret mean");
    assertThat(lines.get(1)).matches("[- ]+");
    // Every row ends where the header ends: columns are right-aligned to one width.
    for (String line : lines) {
      assertThat(line).hasSameSizeAs(lines.get(0));
    }
    assertThat(lines.get(2))
        .startsWith("kv-aware ")
        .endsWith("0.750            inf           -            -");
    assertThat(lines.get(3)).startsWith("round-robin").contains("  1         1  ");
    assertThat(lines.get(4)).startsWith("oracle ").contains("1.000           1.00");
  }

  @Test
  void regretAgainstTheReferencesInTableMarkdownAndJson(@TempDir Path dir) throws Exception {
    List<RequestResult> all = new ArrayList<>();
    // Per seed, every request of an arm has the same TTFT: seed 0 → base, seed 1 → 2 × base.
    Map<String, Double> base = new LinkedHashMap<>();
    base.put("kv-aware", 12.0);
    base.put("kv-aware@1", 12.0);
    base.put("kv-aware@4", 10.0);
    base.put("hit-max", 11.0);
    for (Map.Entry<String, Double> e : base.entrySet()) {
      for (int seed = 0; seed < 2; seed++) {
        for (int i = 0; i < 10; i++) {
          double ttft = e.getValue() * (seed + 1);
          all.add(
              RequestResult.ok(
                  e.getKey(), seed, "s" + i, 0, "w0", i, ttft, ttft, List.of(), 100, 50, 8));
        }
      }
    }
    List<ArmSummary> arms = Summaries.summarizeAll(all, 1_000, List.of("w0"));
    ReportWriter.write(dir, "regret", Map.of(), arms, all);
    List<?> json = (List<?>) Json.parse(Files.readString(dir.resolve("results.json")));
    Map<?, ?> kv = (Map<?, ?>) json.get(0);
    // Seed means: kv-aware (12 + 24) / 2 = 18 against kv-aware@4 (10 + 20) / 2 = 15: +20 %.
    assertThat((Double) kv.get("ttft_p50_seed_mean_ms")).isEqualTo(18.0);
    assertThat((Double) kv.get("regret_ttft_p50")).isCloseTo(0.2, within(1e-12));
    assertThat((Double) kv.get("regret_ttft_mean")).isCloseTo(0.2, within(1e-12));
    assertThat(kv.get("best_static_arm")).isEqualTo("kv-aware@4");
    assertThat(kv.get("regret_reference_p50")).isEqualTo("kv-aware@4");
    assertThat((Double) ((Map<?, ?>) json.get(3)).get("regret_ttft_p50"))
        .isCloseTo(0.1, within(1e-12));
    String table = ReportWriter.table(arms);
    assertThat(table.lines().toList().get(2)).endsWith("+20.0%       +20.0%");
    assertThat(table.lines().toList().get(4)).endsWith("+0.0%        +0.0%");
    String md = Files.readString(dir.resolve("report.md"));
    assertThat(md)
        .contains("## Regret")
        .contains("lowest seed-mean of mean TTFT): `kv-aware@4`")
        .contains("| kv-aware | 18.0 | 18.0 | +20.0% | +20.0% |")
        .contains("| hit-max | 16.5 | 16.5 | +10.0% | +10.0% |");
  }

  @Test
  void imagesAreReportedPerArmOnlyWhenTheWorkloadHasThem(@TempDir Path dir) throws Exception {
    List<ArmSummary> arms =
        List.of(
            Summaries.summarize("kv-aware", List.of(), 1_000)
                .withMultimodal(
                    new MultimodalStats(100, 120, 40, 39, 39)
                        .plus(new MultimodalStats(100, 110, 40, 38, 38))),
            Summaries.summarize("least-loaded", List.of(), 1_000)
                .withMultimodal(new MultimodalStats(200, 230, 80, 56, 0)));
    ReportWriter.write(dir, "images", Map.of(), arms, List.of());
    List<?> json = (List<?>) Json.parse(Files.readString(dir.resolve("results.json")));
    Map<?, ?> kv = (Map<?, ?>) json.get(0);
    assertThat(((Number) kv.get("mm_requests")).longValue()).isEqualTo(200);
    assertThat(((Number) kv.get("mm_images")).longValue()).isEqualTo(230);
    assertThat(((Number) kv.get("mm_repeat_images")).longValue()).isEqualTo(80);
    assertThat(((Number) kv.get("mm_repeat_to_warm")).longValue()).isEqualTo(77);
    assertThat((Double) kv.get("mm_repeat_to_warm_ratio")).isCloseTo(77 / 80.0, within(1e-12));
    assertThat(((Number) kv.get("mm_router_affinity_hits")).longValue()).isEqualTo(77);
    String md = Files.readString(dir.resolve("report.md"));
    assertThat(md)
        .contains("## Images")
        .contains("| kv-aware | 200 | 230 | 80 | 77 | 96.3 % | 77 |")
        .contains("| least-loaded | 200 | 230 | 80 | 56 | 70.0 % | 0 |");

    Path plain = dir.resolve("plain");
    ReportWriter.write(
        plain,
        "text",
        Map.of(),
        List.of(Summaries.summarize("kv-aware", List.of(), 1_000)),
        List.of());
    assertThat(Files.readString(plain.resolve("report.md"))).doesNotContain("## Images");
    Map<?, ?> text =
        (Map<?, ?>) ((List<?>) Json.parse(Files.readString(plain.resolve("results.json")))).get(0);
    assertThat(((Number) text.get("mm_requests")).longValue()).isZero();
    assertThat(text.get("mm_repeat_to_warm_ratio")).isNull();
  }

  @Test
  void percentIsSignedWithOneDecimal() {
    assertThat(ReportWriter.percent(0.05)).isEqualTo("+5.0%");
    assertThat(ReportWriter.percent(-0.1234)).isEqualTo("-12.3%");
    assertThat(ReportWriter.percent(Double.NaN)).isEqualTo("-");
    assertThat(ReportWriter.percent(Double.POSITIVE_INFINITY)).isEqualTo("-");
  }

  @Test
  void tableShowsDashesForUndefinedValues() {
    ArmSummary idle = Summaries.summarize("idle", List.of(), 1_000);
    String row = ReportWriter.table(List.of(idle)).lines().toList().get(2);
    assertThat(row).startsWith("idle").contains(" - ").endsWith("-");
  }
}
