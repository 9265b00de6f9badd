package io.infera.sim.bench.scale;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The scale bench's outputs: a table, {@code results.csv}, {@code report.md} and PNG curves. */
public final class ScaleReport {

  private ScaleReport() {}

  private static final String HEADER =
      "workers,entries,layout,prompt_blocks,apply_blocks_per_s,bytes_per_entry,match_p50_us,"
          + "match_p99_us,pick_p50_us,pick_p99_us";

  /** The fixed-width table printed at the end, both sweeps. */
  public static String table(List<ScaleBench.Point> fleet, List<ScaleBench.Point> sized) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "%8s %11s %7s %7s %12s %8s %10s %10s %10s %10s%n",
            "workers",
            "entries",
            "layout",
            "prompt",
            "apply/s",
            "B/entry",
            "match p50",
            "match p99",
            "pick p50",
            "pick p99"));
    List<ScaleBench.Point> all = new ArrayList<>(fleet);
    all.addAll(sized);
    for (ScaleBench.Point p : all) {
      b.append(
          String.format(
              Locale.ROOT, "%8d %11d %7s %7d %12.0f %8.1f %10.1f %10.1f %10.1f %10.1f%n", row(p)));
    }
    return b.toString();
  }

  /** Writes {@code dir/results.csv}, {@code dir/report.md} and the charts. */
  public static void write(Path dir, List<ScaleBench.Point> fleet, List<ScaleBench.Point> sized)
      throws IOException {
    Files.createDirectories(dir);
    List<String> csv = new ArrayList<>();
    csv.add(HEADER);
    List<ScaleBench.Point> all = new ArrayList<>(fleet);
    all.addAll(sized);
    for (ScaleBench.Point p : all) {
      csv.add(String.format(Locale.ROOT, "%d,%d,%s,%d,%.0f,%.2f,%.2f,%.2f,%.2f,%.2f", row(p)));
    }
    Files.write(dir.resolve("results.csv"), csv);
    List<String> charts = new ArrayList<>();
    if (!fleet.isEmpty()) {
      ScaleCharts.curves(
          dir.resolve("match_p50_vs_workers.png"),
          true,
          "Index match p50 by fleet size",
          "workers (log scale)",
          "match p50 (µs, log scale)",
          fleet,
          p -> p.promptBlocks() + " blocks",
          ScaleBench.Point::workers,
          ScaleBench.Point::matchP50Us);
      ScaleCharts.curves(
          dir.resolve("match_p99_vs_workers.png"),
          true,
          "Index match p99 by fleet size",
          "workers (log scale)",
          "match p99 (µs, log scale)",
          fleet,
          p -> p.promptBlocks() + " blocks",
          ScaleBench.Point::workers,
          ScaleBench.Point::matchP99Us);
      ScaleCharts.curves(
          dir.resolve("pick_p50_vs_workers.png"),
          true,
          "Pick p50, hashing excluded, by fleet size",
          "workers (log scale)",
          "pick p50 (µs, log scale)",
          fleet,
          p -> p.promptBlocks() + " blocks",
          ScaleBench.Point::workers,
          ScaleBench.Point::pickP50Us);
      charts.add("match_p50_vs_workers.png");
      charts.add("match_p99_vs_workers.png");
      charts.add("pick_p50_vs_workers.png");
    }
    if (!sized.isEmpty()) {
      ScaleCharts.curves(
          dir.resolve("match_p99_vs_entries.png"),
          true,
          "Index match p99 (2,000 blocks) by entries",
          "entries (log scale)",
          "match p99 (µs, log scale)",
          sized,
          ScaleReport::layout,
          ScaleBench.Point::entries,
          ScaleBench.Point::matchP99Us);
      ScaleCharts.curves(
          dir.resolve("bytes_per_entry_vs_entries.png"),
          false,
          "Heap per (block, worker) entry",
          "entries (log scale)",
          "bytes per entry",
          sized,
          ScaleReport::layout,
          ScaleBench.Point::entries,
          ScaleBench.Point::bytesPerEntry);
      charts.add("match_p99_vs_entries.png");
      charts.add("bytes_per_entry_vs_entries.png");
    }
    StringBuilder md = new StringBuilder("# Index and pick at fleet scale\n\n```text\n");
    md.append(table(fleet, sized)).append("```\n\n");
    md.append(
        "Times are µs per call, p50/p99 of 4,000 timed calls after 2,000 untimed ones; apply/s is"
            + " (block, worker) entries applied per second on one core, timed inside the index's"
            + " apply (generating the events is not counted); B/entry"
            + " is the heap after the build minus before, after GC, over the entries.\n\n");
    for (String c : charts) {
      md.append("![").append(c).append("](").append(c).append(")\n\n");
    }
    Files.writeString(dir.resolve("report.md"), md.toString());
  }

  /** A point's columns, in the order of {@link #HEADER} and the table. */
  private static Object[] row(ScaleBench.Point p) {
    return new Object[] {
      p.workers(),
      p.entries(),
      layout(p),
      p.promptBlocks(),
      p.applyBlocksPerSecond(),
      p.bytesPerEntry(),
      p.matchP50Us(),
      p.matchP99Us(),
      p.pickP50Us(),
      p.pickP99Us()
    };
  }

  static String layout(ScaleBench.Point p) {
    return p.shared() ? "shared" : "unique";
  }
}
