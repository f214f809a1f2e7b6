package org.urdma.scenario.wan;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.CombinedRangeXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The WAN chart: goodput (fraction of the bottleneck) against loss, one line per protocol, one panel per RTT, drawn
 * with JFreeChart (headless) into a PNG. The loss axis is categorical (0 has no place on a log axis): point i is the
 * i-th loss rate of the run. The datasets stay readable ({@link #panels()}) so a test can check the series.
 */
public final class WanChart {
    static {
        System.setProperty("java.awt.headless", "true"); // before any AWT class initializes: no display here
    }

    private final Map<Double, XYSeriesCollection> panels = new LinkedHashMap<>();
    private final List<Double> losses;
    private final JFreeChart chart;

    public WanChart(WanResults results, String title) {
        this.losses = results.losses();
        NumberAxis goodput = new NumberAxis("goodput / bottleneck");
        goodput.setRange(0, 1.05);
        CombinedRangeXYPlot combined = new CombinedRangeXYPlot(goodput);
        String[] labels = losses.stream().map(l -> WanResults.num(l) + " %").toArray(String[]::new);
        for (double rtt : results.rtts()) {
            XYSeriesCollection data = new XYSeriesCollection();
            for (WanProtocol p : results.protocols()) {
                XYSeries s = new XYSeries(p.label(), false, false);
                for (int i = 0; i < losses.size(); i++) {
                    WanCell c = results.cell(p.key(), rtt, losses.get(i));
                    if (c != null) {
                        s.add(i, c.fraction());
                    }
                }
                data.addSeries(s);
            }
            panels.put(rtt, data);
            SymbolAxis loss = new SymbolAxis("loss (RTT " + WanResults.num(rtt) + " ms)", labels);
            loss.setRange(-0.3, labels.length - 0.7);
            XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
            for (int i = 0; i < data.getSeriesCount(); i++) {
                r.setSeriesStroke(i, new BasicStroke(2f));
            }
            XYPlot plot = new XYPlot(data, loss, null, r);
            plot.setBackgroundPaint(Color.WHITE);
            plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
            combined.add(plot, 1);
        }
        chart = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, combined, true);
        chart.addSubtitle(new TextTitle(title));
        chart.setBackgroundPaint(Color.WHITE);
    }

    /** The plotted data: per RTT (ms), one series per protocol, x = index of the loss rate, y = goodput fraction. */
    public Map<Double, XYSeriesCollection> panels() {
        return panels;
    }

    /** The loss rate (%) of each x index. */
    public List<Double> losses() {
        return losses;
    }

    public void savePng(Path file) throws IOException {
        ChartUtils.saveChartAsPNG(file.toFile(), chart, Math.max(640, 360 * panels.size()), 480);
    }
}
