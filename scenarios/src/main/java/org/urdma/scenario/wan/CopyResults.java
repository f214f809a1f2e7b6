package org.urdma.scenario.wan;

import java.awt.Color;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;

/** The results of {@code scenario copy}: a table per workload, {@code copy.csv} and {@code copy.png} (goodput / R, a bar per row). */
public final class CopyResults {
    static {
        System.setProperty("java.awt.headless", "true"); // before any AWT class initializes: no display here
    }

    static final String CSV_HEADER = "workload,rtt_ms,loss_percent,row,rate_gbps,seconds,payload_bytes,fraction,"
        + "sender_cpu_s_per_gb,receiver_cpu_s_per_gb,wire_per_payload,verified,note";
    private final List<CopyCell> cells = new ArrayList<>();

    public void add(CopyCell c) {
        cells.add(c);
    }

    public List<CopyCell> cells() {
        return cells;
    }

    /** One line per row and cell, grouped by workload (ceilings under "-"). */
    public void printTable(PrintStream out) {
        out.printf(Locale.ROOT, "%-8s %6s %6s  %-36s %9s %8s %12s %12s %10s %s%n", "workload", "RTT ms", "loss %", "row", "seconds",
            "goodput", "send CPU s/GB", "recv CPU s/GB", "wire/payl", "verified");
        for (CopyCell c : cells) {
            CopyRow r = CopyRow.of(c.row());
            out.printf(Locale.ROOT, "%-8s %6s %6s  %-36s %9.2f %8.3f %12s %12s %10s %s%s%n", c.workload(), WanResults.num(c.rttMs()),
                WanResults.num(c.lossPercent()), r == null ? c.row() : r.label(), c.seconds(), c.fraction(), fmt(c.perGb(c.senderCpuSeconds())),
                fmt(c.perGb(c.receiverCpuSeconds())), fmt(c.wirePerPayload()), c.verified() ? "ok" : "NO",
                c.note().isEmpty() ? "" : "  (" + c.note() + ")");
        }
    }

    private static String fmt(double d) {
        return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%.3f", d);
    }

    public void writeCsv(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(CSV_HEADER);
        for (CopyCell c : cells) {
            lines.add(String.join(",", c.workload(), WanResults.num(c.rttMs()), WanResults.num(c.lossPercent()), c.row(),
                WanResults.num(c.rateGbps()), String.format(Locale.ROOT, "%.3f", c.seconds()), Long.toString(c.payloadBytes()),
                String.format(Locale.ROOT, "%.4f", c.fraction()), csv(c.perGb(c.senderCpuSeconds())), csv(c.perGb(c.receiverCpuSeconds())),
                csv(c.wirePerPayload()), c.verified() ? "ok" : "NO", c.note().replace(',', ';').replace('\n', ' ')));
        }
        Files.write(file, lines);
    }

    private static String csv(double d) {
        return Double.isNaN(d) ? "" : String.format(Locale.ROOT, "%.4f", d);
    }

    /** Reads a CSV this class wrote. */
    public static CopyResults readCsv(Path file) throws IOException {
        CopyResults r = new CopyResults();
        List<String> lines = Files.readAllLines(file);
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            double rate = Double.parseDouble(f[4]);
            double seconds = Double.parseDouble(f[5]);
            long bytes = Long.parseLong(f[6]);
            double gb = bytes / 1e9;
            r.add(new CopyCell(f[0], Double.parseDouble(f[1]), Double.parseDouble(f[2]), f[3], rate, seconds, bytes,
                f[8].isEmpty() ? Double.NaN : Double.parseDouble(f[8]) * gb, f[9].isEmpty() ? Double.NaN : Double.parseDouble(f[9]) * gb,
                f[10].isEmpty() ? -1 : Math.round(Double.parseDouble(f[10]) * bytes), f[11].equals("ok"), f[12]));
        }
        return r;
    }

    /** Goodput / R as bars: a category per workload and cell, a bar per row. */
    public void savePng(Path file, String title) throws IOException {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (CopyCell c : cells) {
            CopyRow r = CopyRow.of(c.row());
            data.addValue(c.fraction(), r == null ? c.row() : r.label(), c.workload() + " " + WanResults.num(c.rttMs()) + " ms "
                + WanResults.num(c.lossPercent()) + " %");
        }
        CategoryAxis x = new CategoryAxis("workload, RTT, loss");
        x.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        NumberAxis y = new NumberAxis("goodput / bottleneck (to a verified finish)");
        y.setRange(0, 1.05);
        CategoryPlot plot = new CategoryPlot(data, x, y, new BarRenderer());
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.addSubtitle(new TextTitle(title));
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, Math.max(800, 60 * data.getColumnCount()), 520);
    }
}
