package io.infera.sim.cli;

import io.infera.sim.bench.BenchRunner;
import io.infera.sim.bench.report.ReportWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/** The end of {@code bench} and {@code demo}: the report folder, warnings, the console table. */
final class Reports {

  private Reports() {}

  /**
   * Adds the runs' validity to {@code params}, writes the report folder, prints every warning to
   * {@code err} and the table to {@code out}.
   *
   * @param live whether engines ran on the wall clock (their clock slip is then reported)
   */
  static void write(
      PrintWriter out,
      PrintWriter err,
      Path dir,
      String title,
      Map<String, Object> params,
      BenchRunner.Result result,
      boolean live)
      throws IOException {
    if (live) {
      params.put(
          "engine_clock_slip",
          String.format(
              Locale.ROOT,
              "%.1f%% (worst run: how late steps finished because the host fell behind)",
              100 * result.maxClockSlip()));
    }
    if (!result.warnings().isEmpty()) {
      params.put("warnings", String.join(" / ", result.warnings()));
    }
    String chartsProblem = ReportWriter.write(dir, title, params, result.arms(), result.all());
    for (String w : result.warnings()) {
      err.println("warning: " + w);
    }
    if (chartsProblem != null) {
      err.println("warning: " + chartsProblem);
    }
    err.flush();
    out.println(ReportWriter.table(result.arms()));
  }
}
