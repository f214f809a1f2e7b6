package org.urdma.scenario.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.urdma.scenario.world.Fct;

/**
 * The HPCC paper's Figure 11 shape (JFreeChart, headless PNG): slowdown against flow size (log scale; each point a
 * group of flows at its largest size), one panel per percentile (p50, p95, p99), a line per congestion control.
 */
public final class FctChart {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    private static final String[] PERCENTILES = {"p50", "p95", "p99"};
    private static final Color[] COLOURS = {new Color(0xD62728), new Color(0x1F77B4), new Color(0x2CA02C), new Color(0xFF7F0E),
        new Color(0x9467BD), new Color(0x8C564B), new Color(0xE377C2), new Color(0x7F7F7F)};

    private final JFreeChart chart;

    public FctChart(List<Fct.Run> runs, int stepPercent, String title) {
        LogAxis size = new LogAxis("flow size (bytes)");
        size.setSmallestValue(1);
        size.setTickUnit(new NumberTickUnit(1)); // a tick per power of ten
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(size);
        for (int k = 0; k < PERCENTILES.length; k++) {
            XYSeriesCollection data = new XYSeriesCollection();
            for (Fct.Run r : runs) {
                XYSeries s = new XYSeries(r.cc(), false, true);
                for (double[] g : Fct.buckets(r, stepPercent)) {
                    if (g[0] > 0 && !Double.isNaN(g[k + 1])) s.add(g[0], g[k + 1]);
                }
                data.addSeries(s);
            }
            NumberAxis slowdown = new NumberAxis(PERCENTILES[k] + " slowdown");
            slowdown.setAutoRangeIncludesZero(false);
            XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
            for (int i = 0; i < data.getSeriesCount(); i++) {
                renderer.setSeriesStroke(i, new BasicStroke(1.5f));
                renderer.setSeriesPaint(i, COLOURS[i % COLOURS.length]); // a CC has one colour in every panel
            }
            if (k > 0) renderer.setDefaultSeriesVisibleInLegend(false); // one legend: the colours are the same in every panel
            XYPlot panel = new XYPlot(data, null, slowdown, renderer);
            panel.setBackgroundPaint(Color.WHITE);
            panel.setRangeGridlinePaint(Color.LIGHT_GRAY);
            panel.setDomainGridlinePaint(Color.LIGHT_GRAY);
            plot.add(panel, 1);
        }
        chart = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.addSubtitle(new TextTitle(title));
        chart.setBackgroundPaint(Color.WHITE);
    }

    public void save(Path file) throws IOException {
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 960, 900);
    }
}
