package dev.floe.e2e.bench;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** A PNG of throughput (events/s, left axis) and lag (records, right axis) over time. */
final class Chart {
  private Chart() {}

  static void throughputAndLag(Path png, String title, List<Sampler.Sample> samples) throws IOException {
    XYSeries throughput = new XYSeries("applied events/s");
    XYSeries lag = new XYSeries("lag (records)");
    for (int i = 0; i < samples.size(); i++) {
      Sampler.Sample s = samples.get(i);
      lag.add(s.seconds(), s.lag());
      if (i > 0) {
        Sampler.Sample p = samples.get(i - 1);
        throughput.add(s.seconds(), (s.applied() - p.applied()) / Math.max(1e-3, s.seconds() - p.seconds()));
      }
    }
    XYLineAndShapeRenderer throughputRenderer = new XYLineAndShapeRenderer(true, false);
    throughputRenderer.setSeriesPaint(0, new Color(0x1f77b4));
    XYPlot plot = new XYPlot(new XYSeriesCollection(throughput), new NumberAxis("seconds"), new NumberAxis("events/s"), throughputRenderer);
    plot.setDataset(1, new XYSeriesCollection(lag));
    plot.setRangeAxis(1, new NumberAxis("lag (records)"));
    plot.mapDatasetToRangeAxis(1, 1);
    XYLineAndShapeRenderer lagRenderer = new XYLineAndShapeRenderer(true, false);
    lagRenderer.setSeriesPaint(0, Color.RED.darker());
    plot.setRenderer(1, lagRenderer);
    plot.setBackgroundPaint(Color.WHITE);
    JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 450);
  }
}
