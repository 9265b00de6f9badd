package io.infera.sim.bench.report;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The report's PNG charts, drawn headless with XChart. */
final class Charts {

  static {
    // Charts are written on servers and in CI: never try to open a display.
    System.setProperty("java.awt.headless", "true");
  }

  private static final int WIDTH = 900;
  private static final int HEIGHT = 520;

  /** Points per CDF curve; more only slows drawing. */
  private static final int CDF_POINTS = 400;

  /**
   * TTFT values at or below 0 (possible in virtual time) are drawn at this floor on the log axis.
   */
  private static final double MIN_TTFT_MS = 1e-3;

  private Charts() {}

  /**
   * The empirical CDF of TTFT per policy on a logarithmic time axis.
   *
   * @param ttftByPolicy ascending TTFTs (ms) of each policy's successful requests, in legend order
   */
  static void ttftCdf(Path file, Map<String, double[]> ttftByPolicy) throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title("Time to first token (CDF)")
            .xAxisTitle("TTFT (ms, log scale)")
            .yAxisTitle("fraction of requests")
            .build();
    chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideSE);
    chart.getStyler().setYAxisMin(0.0).setYAxisMax(1.0);
    chart.getStyler().setYAxisDecimalPattern("0.0#");
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (Map.Entry<String, double[]> e : ttftByPolicy.entrySet()) {
      double[] sorted = e.getValue();
      if (sorted.length == 0) {
        continue;
      }
      int points = Math.min(CDF_POINTS, sorted.length);
      double[] x = new double[points];
      double[] y = new double[points];
      for (int k = 0; k < points; k++) {
        // Evenly spaced ranks, always ending at the maximum.
        int rank = (int) Math.ceil((k + 1) * (double) sorted.length / points);
        x[k] = Math.max(MIN_TTFT_MS, sorted[rank - 1]);
        y[k] = (double) rank / sorted.length;
      }
      lo = Math.min(lo, x[0]);
      hi = Math.max(hi, x[points - 1]);
      chart.addSeries(e.getKey(), x, y).setMarker(SeriesMarkers.NONE);
    }
    if (lo > hi) {
      chart.setTitle("Time to first token (CDF): no successful requests");
      chart
          .addSeries("no data", new double[] {1, 10}, new double[] {0, 0})
          .setMarker(SeriesMarkers.NONE);
      lo = 1;
      hi = 10;
    }
    chart.getStyler().setXAxisLogarithmic(true);
    // A log axis needs a positive span of at least a little more than one decade to draw labels.
    chart.getStyler().setXAxisMin(lo / 1.5).setXAxisMax(Math.max(hi * 1.5, lo * 10));
    save(chart, file);
  }

  /** Each policy's share of requests per worker, grouped bars. */
  static void workerShare(Path file, List<ArmSummary> arms) throws IOException {
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title("Requests per worker (share of each policy's requests)")
            .xAxisTitle("worker")
            .yAxisTitle("share of requests (%)")
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setYAxisDecimalPattern("0.#");
    TreeSet<String> workers = new TreeSet<>(NaturalOrder.INSTANCE);
    for (ArmSummary a : arms) {
      workers.addAll(a.perWorkerRequests().keySet());
    }
    List<String> categories = new ArrayList<>(workers);
    if (categories.size() > 20) {
      chart.getStyler().setXAxisLabelRotation(60);
    }
    Map<String, List<Double>> series = new LinkedHashMap<>();
    for (ArmSummary a : arms) {
      long total = 0;
      for (long c : a.perWorkerRequests().values()) {
        total += c;
      }
      List<Double> shares = new ArrayList<>(categories.size());
      for (String w : categories) {
        long c = a.perWorkerRequests().getOrDefault(w, 0L);
        shares.add(total == 0 ? 0.0 : 100.0 * c / total);
      }
      series.put(a.policy(), shares);
    }
    if (categories.isEmpty() || series.isEmpty()) {
      chart.setTitle("Requests per worker: no routed requests");
      chart.addSeries("no data", List.of("none"), List.of(0.0));
    } else {
      for (Map.Entry<String, List<Double>> e : series.entrySet()) {
        chart.addSeries(e.getKey(), categories, e.getValue());
      }
    }
    save(chart, file);
  }

  private static void save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path file)
      throws IOException {
    BufferedImage image = BitmapEncoder.getBufferedImage(chart);
    if (!ImageIO.write(image, "png", file.toFile())) {
      throw new IOException("no PNG writer available for " + file);
    }
  }
}
