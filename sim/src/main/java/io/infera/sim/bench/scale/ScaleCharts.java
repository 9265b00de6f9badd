package io.infera.sim.bench.scale;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/** The scale bench's curves as PNG line charts (log-scaled x axis), drawn headless. */
final class ScaleCharts {

  static {
    System.setProperty("java.awt.headless", "true");
  }

  private ScaleCharts() {}

  /**
   * One curve per series key, x and y read off each point.
   *
   * @param logY a logarithmic y axis (latencies spanning orders of magnitude)
   * @param series the label of the curve a point belongs to
   */
  static void curves(
      Path file,
      boolean logY,
      String title,
      String xTitle,
      String yTitle,
      List<ScaleBench.Point> points,
      Function<ScaleBench.Point, String> series,
      ToDoubleFunction<ScaleBench.Point> x,
      ToDoubleFunction<ScaleBench.Point> y)
      throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(520)
            .title(title)
            .xAxisTitle(xTitle)
            .yAxisTitle(yTitle)
            .build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setYAxisLogarithmic(logY);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    Map<String, TreeMap<Double, Double>> bySeries = new java.util.LinkedHashMap<>();
    for (ScaleBench.Point p : points) {
      bySeries
          .computeIfAbsent(series.apply(p), k -> new TreeMap<>())
          .put(x.applyAsDouble(p), y.applyAsDouble(p));
    }
    for (Map.Entry<String, TreeMap<Double, Double>> e : bySeries.entrySet()) {
      double[] xs = e.getValue().keySet().stream().mapToDouble(Double::doubleValue).toArray();
      double[] ys = e.getValue().values().stream().mapToDouble(Double::doubleValue).toArray();
      chart.addSeries(e.getKey(), xs, ys);
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
