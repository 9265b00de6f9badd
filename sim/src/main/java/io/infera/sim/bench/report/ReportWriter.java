package io.infera.sim.bench.report;

import io.infera.router.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Writes a benchmark's results for people and for machines: {@code results.json} (one object per
 * arm), {@code report.md}, {@code requests.csv} (every request) and the charts {@code ttft_cdf.png}
 * and {@code worker_share.png}; {@link #table} is the same table for the console.
 */
public final class ReportWriter {

  public static final String RESULTS_JSON = "results.json";
  public static final String REPORT_MD = "report.md";
  public static final String REQUESTS_CSV = "requests.csv";
  public static final String TTFT_CDF_PNG = "ttft_cdf.png";
  public static final String WORKER_SHARE_PNG = "worker_share.png";

  private static final String[] HEADER = {
    "policy",
    "requests",
    "errors",
    "rejected",
    "ttft p50 ms",
    "ttft p90 ms",
    "ttft p99 ms",
    "ttft mean ms",
    "tok/s",
    "hit ratio",
    "vs oracle",
    "max/min share",
    "regret p50",
    "regret mean"
  };

  private ReportWriter() {}

  /**
   * Writes every report file into {@code dir} (created if missing; files there are replaced).
   *
   * @param parameters the run's knobs (workload, fleet, seeds…), listed in the report in order
   * @param arms one summary per arm, in table order
   * @param all every request of every arm and seed (for the TTFT chart and requests.csv)
   * @return null, or why the PNG charts could not be drawn (e.g. a JDK without fonts); everything
   *     else was written and the Markdown says so
   */
  public static String write(
      Path dir,
      String title,
      Map<String, Object> parameters,
      List<ArmSummary> arms,
      List<RequestResult> all)
      throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(RESULTS_JSON), resultsJson(arms), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve(REQUESTS_CSV), requestsCsv(all), StandardCharsets.UTF_8);
    String chartsProblem = null;
    try {
      Charts.ttftCdf(dir.resolve(TTFT_CDF_PNG), ttftByPolicy(arms, all));
      Charts.workerShare(dir.resolve(WORKER_SHARE_PNG), arms);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (RuntimeException | Error e) {
      // AWT needs fontconfig and at least one font even headless; a bare JDK image lacks them.
      chartsProblem =
          "charts not drawn ("
              + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
              + "); install fonts, e.g. apt-get install fontconfig fonts-dejavu-core";
    }
    Files.writeString(
        dir.resolve(REPORT_MD),
        markdown(title, parameters, arms, chartsProblem),
        StandardCharsets.UTF_8);
    return chartsProblem;
  }

  /**
   * A fixed-width text table, one row per arm: policy, requests, errors, rejected, TTFT
   * p50/p90/p99/mean (ms), throughput (tok/s), hit ratio, hit ratio vs oracle, max/min share,
   * regret on p50 and mean TTFT (signed percent). Undefined values print as {@code -}, an idle
   * worker's share as {@code inf}. Ends with a newline.
   */
  public static String table(List<ArmSummary> arms) {
    List<String[]> rows = new ArrayList<>(arms.size() + 1);
    rows.add(HEADER);
    for (ArmSummary a : arms) {
      rows.add(
          new String[] {
            a.policy(),
            Integer.toString(a.requests()),
            Integer.toString(a.errors()),
            Integer.toString(a.rejections()),
            fixed(a.ttftP50Ms(), 1),
            fixed(a.ttftP90Ms(), 1),
            fixed(a.ttftP99Ms(), 1),
            fixed(a.ttftMeanMs(), 1),
            fixed(a.throughputTokS(), 1),
            fixed(a.hitRatio(), 3),
            a.hitRatioVsOracle() == null ? "-" : fixed(a.hitRatioVsOracle(), 3),
            fixed(a.maxMinShare(), 2),
            a.regret() == null ? "-" : percent(a.regret().p50()),
            a.regret() == null ? "-" : percent(a.regret().mean())
          });
    }
    int[] width = new int[HEADER.length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (int r = 0; r < rows.size(); r++) {
      appendRow(sb, rows.get(r), width);
      if (r == 0) {
        String[] rule = new String[width.length];
        for (int c = 0; c < width.length; c++) {
          rule[c] = "-".repeat(width[c]);
        }
        appendRow(sb, rule, width);
      }
    }
    return sb.toString();
  }

  private static void appendRow(StringBuilder sb, String[] row, int[] width) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < row.length; c++) {
      if (c > 0) {
        line.append("  ");
      }
      String pad = " ".repeat(width[c] - row[c].length());
      // Names read left-aligned, numbers right-aligned.
      line.append(c == 0 ? row[c] + pad : pad + row[c]);
    }
    sb.append(line.toString().stripTrailing()).append('\n');
  }

  /** One arm as the JSON object of {@code results.json} (snake_case keys; NaN and ∞ → null). */
  public static Map<String, Object> toJson(ArmSummary a) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("policy", a.policy());
    m.put("seeds", a.seeds());
    m.put("requests", a.requests());
    m.put("errors", a.errors());
    m.put("rejections", a.rejections());
    m.put("ttft_p50_ms", finite(a.ttftP50Ms()));
    m.put("ttft_p90_ms", finite(a.ttftP90Ms()));
    m.put("ttft_p99_ms", finite(a.ttftP99Ms()));
    m.put("ttft_mean_ms", finite(a.ttftMeanMs()));
    m.put("itl_p50_ms", finite(a.itlP50Ms()));
    m.put("itl_p99_ms", finite(a.itlP99Ms()));
    m.put("throughput_tok_s", finite(a.throughputTokS()));
    m.put("hit_ratio", finite(a.hitRatio()));
    m.put(
        "hit_ratio_vs_oracle", a.hitRatioVsOracle() == null ? null : finite(a.hitRatioVsOracle()));
    m.put("max_min_share", finite(a.maxMinShare()));
    m.put("per_worker_requests", new LinkedHashMap<String, Object>(a.perWorkerRequests()));
    m.put("ttft_p50_seed_mean_ms", finite(a.ttftP50SeedMeanMs()));
    m.put("ttft_mean_seed_mean_ms", finite(a.ttftMeanSeedMeanMs()));
    ArmSummary.Regret r = a.regret();
    m.put("regret_ttft_p50", r == null ? null : finite(r.p50()));
    m.put("regret_ttft_mean", r == null ? null : finite(r.mean()));
    m.put("regret_reference_p50", r == null ? null : r.p50Reference());
    m.put("regret_reference_mean", r == null ? null : r.meanReference());
    m.put("best_static_arm", r == null ? null : r.bestStatic());
    MultimodalStats mm = a.multimodal();
    m.put("mm_requests", mm.requests());
    m.put("mm_images", mm.images());
    m.put("mm_repeat_images", mm.repeatImages());
    m.put("mm_repeat_to_warm", mm.repeatToWarm());
    m.put("mm_repeat_to_warm_ratio", finite(mm.warmFraction()));
    m.put("mm_router_affinity_hits", mm.routerAffinityHits());
    return m;
  }

  static String resultsJson(List<ArmSummary> arms) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < arms.size(); i++) {
      sb.append(i == 0 ? "\n  " : ",\n  ");
      Json.write(toJson(arms.get(i)), sb);
    }
    return sb.append(arms.isEmpty() ? "]\n" : "\n]\n").toString();
  }

  static String markdown(
      String title, Map<String, Object> parameters, List<ArmSummary> arms, String chartsProblem) {
    StringBuilder md = new StringBuilder();
    md.append("# ").append(title).append("\n\n");
    md.append("## Parameters\n\n");
    if (parameters.isEmpty()) {
      md.append("(none given)\n\n");
    } else {
      md.append("| parameter | value |\n|---|---|\n");
      for (Map.Entry<String, Object> e : parameters.entrySet()) {
        md.append("| ")
            .append(cell(e.getKey()))
            .append(" | ")
            .append(cell(String.valueOf(e.getValue())))
            .append(" |\n");
      }
      md.append('\n');
    }
    md.append("## Results\n\n```text\n").append(table(arms)).append("```\n\n");
    appendRegret(md, arms);
    appendImages(md, arms);
    appendWorkerTable(md, arms);
    md.append("## Charts\n\n");
    if (chartsProblem == null) {
      md.append("![TTFT distribution per policy](").append(TTFT_CDF_PNG).append(")\n\n");
      md.append("![Requests per worker per policy](").append(WORKER_SHARE_PNG).append(")\n\n");
    } else {
      md.append("Not drawn: ").append(chartsProblem).append(".\n\n");
    }
    md.append("## Notes\n\n");
    md.append(
        "- Seeds are pooled: percentiles are nearest-rank over every seed's requests; throughput"
            + " is all output tokens over the total run time.\n");
    md.append(
        "- Latencies, throughput and hit ratio count successful requests only; `errors` counts"
            + " every failed request, `rejected` those refused by admission control (a policy that"
            + " sheds load can look fast: read these first).\n");
    md.append("- Hit ratio = cached prompt tokens / prompt tokens, as the engines report them.\n");
    md.append(
        "- `vs oracle` = hit ratio / the hit ratio of the `oracle` arm (routes by every engine's"
            + " true cache); `-` when no oracle ran.\n");
    md.append(
        "- `max/min share` = requests on the busiest worker / on the idlest; `inf` when a worker"
            + " got none.\n");
    md.append(
        "- `regret` = (arm − best reference) / best reference on each seed's p50 (or mean) TTFT"
            + " averaged over the seeds; the references are the best static overlap weight in"
            + " hindsight (the `kv-aware@W` sweep arm with the lowest seed-mean of mean TTFT) and"
            + " `hit-max` (most truly cached blocks, ties by load), whichever is lower on that"
            + " metric; `-` when neither ran. Negative means faster than the reference.\n");
    md.append(
        "- `results.json` holds these numbers (null where undefined or infinite);"
            + " `requests.csv` every request.\n");
    return md.toString();
  }

  private static void appendRegret(StringBuilder md, List<ArmSummary> arms) {
    ArmSummary.Regret any = null;
    for (ArmSummary a : arms) {
      if (a.regret() != null) {
        any = a.regret();
        break;
      }
    }
    if (any == null) {
      return;
    }
    md.append("## Regret\n\n");
    md.append("- Best static overlap weight in hindsight (lowest seed-mean of mean TTFT): ")
        .append(any.bestStatic() == null ? "no sweep arm ran" : "`" + any.bestStatic() + "`")
        .append(".\n");
    md.append("- Reference on p50 TTFT: `")
        .append(any.p50Reference())
        .append("`; on mean TTFT: `")
        .append(any.meanReference())
        .append("`.\n\n");
    md.append(
        "| policy | ttft p50 ms (seed mean) | ttft mean ms (seed mean) | regret p50 | regret mean |\n"
            + "|---|---:|---:|---:|---:|\n");
    for (ArmSummary a : arms) {
      md.append("| ")
          .append(cell(a.policy()))
          .append(" | ")
          .append(fixed(a.ttftP50SeedMeanMs(), 1))
          .append(" | ")
          .append(fixed(a.ttftMeanSeedMeanMs(), 1))
          .append(" | ")
          .append(a.regret() == null ? "-" : percent(a.regret().p50()))
          .append(" | ")
          .append(a.regret() == null ? "-" : percent(a.regret().mean()))
          .append(" |\n");
    }
    md.append('\n');
  }

  /** Where each arm's images went; nothing when no arm routed an image. */
  private static void appendImages(StringBuilder md, List<ArmSummary> arms) {
    if (arms.stream().allMatch(a -> a.multimodal().requests() == 0)) {
      return;
    }
    md.append("## Images\n\n");
    md.append(
        "A repeat image is one some worker served before in the run; it reached a warm worker when"
            + " it went to a worker that had served it. Affinity hits are the images the router's"
            + " pick found in its image-affinity memory.\n\n");
    md.append(
        "| policy | requests with images | images | repeat images | to a warm worker | share |"
            + " router affinity hits |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (ArmSummary a : arms) {
      MultimodalStats m = a.multimodal();
      md.append("| ")
          .append(cell(a.policy()))
          .append(" | ")
          .append(m.requests())
          .append(" | ")
          .append(m.images())
          .append(" | ")
          .append(m.repeatImages())
          .append(" | ")
          .append(m.repeatToWarm())
          .append(" | ")
          .append(Double.isNaN(m.warmFraction()) ? "-" : fixed(100 * m.warmFraction(), 1) + " %")
          .append(" | ")
          .append(m.routerAffinityHits())
          .append(" |\n");
    }
    md.append('\n');
  }

  /** A signed percentage with one decimal ({@code +12.3%}); {@code -} when undefined. */
  static String percent(double ratio) {
    if (!Double.isFinite(ratio)) {
      return "-";
    }
    return String.format(Locale.ROOT, "%+.1f%%", 100 * ratio);
  }

  private static void appendWorkerTable(StringBuilder md, List<ArmSummary> arms) {
    TreeSet<String> workers = new TreeSet<>(NaturalOrder.INSTANCE);
    for (ArmSummary a : arms) {
      workers.addAll(a.perWorkerRequests().keySet());
    }
    if (workers.isEmpty()) {
      return;
    }
    md.append("## Requests per worker\n\n| policy |");
    for (String w : workers) {
      md.append(' ').append(cell(w)).append(" |");
    }
    md.append("\n|---|");
    md.append("---:|".repeat(workers.size()));
    md.append('\n');
    for (ArmSummary a : arms) {
      md.append("| ").append(cell(a.policy())).append(" |");
      for (String w : workers) {
        md.append(' ').append(a.perWorkerRequests().getOrDefault(w, 0L)).append(" |");
      }
      md.append('\n');
    }
    md.append('\n');
  }

  static String requestsCsv(List<RequestResult> all) {
    StringBuilder sb =
        new StringBuilder(
            "policy,seed,session_id,turn,worker,sent_ms,ttft_ms,e2e_ms,itl_count,itl_mean_ms,"
                + "prompt_tokens,cached_tokens,output_tokens,error,error_kind\n");
    for (RequestResult r : all) {
      double itlSum = 0;
      for (double gap : r.itlMs()) {
        itlSum += gap;
      }
      sb.append(csv(r.policy()))
          .append(',')
          .append(r.seed())
          .append(',')
          .append(csv(r.sessionId()))
          .append(',')
          .append(r.turn())
          .append(',')
          .append(csv(r.worker()))
          .append(',')
          .append(number(r.sentMs()))
          .append(',')
          .append(number(r.ttftMs()))
          .append(',')
          .append(number(r.e2eMs()))
          .append(',')
          .append(r.itlMs().size())
          .append(',')
          .append(r.itlMs().isEmpty() ? "" : number(itlSum / r.itlMs().size()))
          .append(',')
          .append(r.promptTokens())
          .append(',')
          .append(r.cachedTokens())
          .append(',')
          .append(r.outputTokens())
          .append(',')
          .append(r.error())
          .append(',')
          .append(csv(r.errorKind()))
          .append('\n');
    }
    return sb.toString();
  }

  private static Map<String, double[]> ttftByPolicy(
      List<ArmSummary> arms, List<RequestResult> all) {
    Map<String, double[]> out = new LinkedHashMap<>();
    Map<String, List<Double>> values = new LinkedHashMap<>();
    // Legend follows the table's order; policies only present in `all` follow.
    for (ArmSummary a : arms) {
      values.put(a.policy(), new ArrayList<>());
    }
    for (RequestResult r : all) {
      if (!r.error() && Double.isFinite(r.ttftMs())) {
        values.computeIfAbsent(r.policy(), k -> new ArrayList<>()).add(r.ttftMs());
      }
    }
    for (Map.Entry<String, List<Double>> e : values.entrySet()) {
      double[] v = e.getValue().stream().mapToDouble(Double::doubleValue).toArray();
      Arrays.sort(v);
      out.put(e.getKey(), v);
    }
    return out;
  }

  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }

  private static String fixed(double v, int decimals) {
    if (Double.isNaN(v)) {
      return "-";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "inf" : "-inf";
    }
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  private static String number(double v) {
    return Double.isFinite(v) ? Double.toString(v) : "";
  }

  private static String cell(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }

  private static String csv(String s) {
    if (s == null) {
      return "";
    }
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }
}
