package org.urdma.scenario.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.urdma.scenario.world.Incast;

/**
 * The incast charts (JFreeChart, headless PNG): per-flow throughput over time, one panel per PFC setting; and the
 * bottleneck queue over time with the RED thresholds drawn, one line per PFC setting.
 */
public final class IncastChart {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    private final JFreeChart throughput;
    private final JFreeChart queue;
    private final XYSeriesCollection queueData = new XYSeriesCollection();

    public IncastChart(Incast.Options o, List<Incast.Run> runs, String title) {
        CombinedDomainXYPlot flows = new CombinedDomainXYPlot(new NumberAxis("time (ms)"));
        for (Incast.Run r : runs) {
            Incast.Series s = r.series();
            XYSeriesCollection data = new XYSeriesCollection();
            for (int i = 0; i < s.flowGbps().length; i++) {
                XYSeries x = new XYSeries("h" + i, false, false);
                for (int k = 0; k < s.timesNs().length; k++) x.add(s.timesNs()[k] / 1e6, s.flowGbps()[i][k]);
                data.addSeries(x);
            }
            NumberAxis gbps = new NumberAxis("Gbit/s, PFC " + (r.pfc() ? "on" : "off"));
            gbps.setRange(0, o.rateBps() / 1e9 * 1.05);
            XYPlot panel = plot(data, gbps);
            if (!flows.getSubplots().isEmpty()) panel.getRenderer().setDefaultSeriesVisibleInLegend(false); // same colours
            flows.add(panel, 1);
        }
        throughput = chart(flows, title + ": throughput per flow");

        for (Incast.Run r : runs) {
            Incast.Series s = r.series();
            XYSeries x = new XYSeries("queue, PFC " + (r.pfc() ? "on" : "off"), false, false);
            for (int k = 0; k < s.queueTimesNs().length; k++) x.add(s.queueTimesNs()[k] / 1e6, s.queueBytes()[k] / 1e3);
            queueData.addSeries(x);
        }
        XYPlot q = plot(queueData, new NumberAxis("bottleneck queue (KB)"));
        q.setDomainAxis(new NumberAxis("time (ms)"));
        for (long k : new long[] {o.kminBytes(), o.kmaxBytes()}) {
            ValueMarker m = new ValueMarker(k / 1e3, Color.GRAY, new BasicStroke(1f, BasicStroke.CAP_BUTT,
                    BasicStroke.JOIN_MITER, 1f, new float[] {4f, 4f}, 0f));
            q.addRangeMarker(m);
        }
        queue = chart(q, title + ": bottleneck queue (dashed: RED kmin, kmax)");
    }

    private static XYPlot plot(XYSeriesCollection data, NumberAxis range) {
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < data.getSeriesCount(); i++) r.setSeriesStroke(i, new BasicStroke(1.2f));
        XYPlot plot = new XYPlot(data, null, range, r);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        return plot;
    }

    private static JFreeChart chart(XYPlot plot, String title) {
        JFreeChart c = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        c.addSubtitle(new TextTitle(title));
        c.setBackgroundPaint(Color.WHITE);
        return c;
    }

    /** The queue chart's data: one series per run, x = ms, y = KB. */
    public XYSeriesCollection queueData() {
        return queueData;
    }

    public void save(Path dir) throws IOException {
        ChartUtils.saveChartAsPNG(dir.resolve("incast-throughput.png").toFile(), throughput, 960, 360 * 2);
        ChartUtils.saveChartAsPNG(dir.resolve("incast-queue.png").toFile(), queue, 960, 400);
    }
}
