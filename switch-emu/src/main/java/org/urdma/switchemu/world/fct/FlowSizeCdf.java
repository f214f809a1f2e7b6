package org.urdma.switchemu.world.fct;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A flow-size distribution as HPCC's traffic generator reads it: lines {@code size percentile}, the percentiles
 * 0..100, both columns strictly increasing, the first percentile 0 and the last 100; between points the CDF is
 * linear. Sizes are drawn by inverting it (a uniform percentile, interpolated), truncated to whole bytes, at least 1.
 */
public final class FlowSizeCdf {
    private final double[] size;
    private final double[] percent;

    private FlowSizeCdf(double[] size, double[] percent) {
        this.size = size;
        this.percent = percent;
    }

    /** The distributions shipped: {@code websearch} (DCTCP's web search) and {@code fb_hadoop} (Facebook's Hadoop). */
    public static final java.util.List<String> SHIPPED = java.util.List.of("websearch", "fb_hadoop");

    /** A shipped distribution by name (see {@link #SHIPPED}), or null. */
    public static FlowSizeCdf shipped(String name) {
        String n = name.trim().toLowerCase(java.util.Locale.ROOT).replace('-', '_');
        if (n.equals("fbhdp") || n.equals("hadoop")) n = "fb_hadoop";
        if (!SHIPPED.contains(n)) return null;
        try (java.io.InputStream in = FlowSizeCdf.class.getResourceAsStream(n + ".cdf")) {
            return parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII), n);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public static FlowSizeCdf parse(String text, String source) {
        List<double[]> points = new ArrayList<>();
        String[] lines = text.split("\r?\n");
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i].trim();
            if (l.isEmpty() || l.startsWith("#")) continue;
            String[] x = l.split("\\s+");
            String where = source + ":" + (i + 1) + ": ";
            if (x.length != 2) throw new IllegalArgumentException(where + "a CDF point is: size percentile, got '" + l + "'");
            double s;
            double p;
            try {
                s = Double.parseDouble(x[0]);
                p = Double.parseDouble(x[1]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + "not a number in '" + l + "'");
            }
            if (!points.isEmpty()) {
                double[] last = points.get(points.size() - 1);
                if (!(s > last[0]) || !(p > last[1])) {
                    throw new IllegalArgumentException(where + "sizes and percentiles must both increase, got '" + l + "' after "
                            + (long) last[0] + " " + last[1]);
                }
            } else if (p != 0 || s < 0) {
                throw new IllegalArgumentException(where + "the first point must be at percentile 0 (and size >= 0), got '" + l + "'");
            }
            points.add(new double[] {s, p});
        }
        if (points.size() < 2 || points.get(points.size() - 1)[1] != 100) {
            throw new IllegalArgumentException(source + ": a CDF needs at least two points and must end at percentile 100");
        }
        double[] s = new double[points.size()];
        double[] p = new double[points.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = points.get(i)[0];
            p[i] = points.get(i)[1];
        }
        return new FlowSizeCdf(s, p);
    }

    /** The mean size (the linear pieces' midpoints weighted by their probability), as HPCC's getAvg. */
    public double mean() {
        double m = 0;
        for (int i = 1; i < size.length; i++) m += (size[i] + size[i - 1]) / 2 * (percent[i] - percent[i - 1]);
        return m / 100;
    }

    /** A size drawn from the distribution. */
    public long draw(RandomGenerator r) {
        double y = r.nextDouble() * 100;
        int i = 1;
        while (i < size.length - 1 && y > percent[i]) i++;
        double v = size[i - 1] + (size[i] - size[i - 1]) / (percent[i] - percent[i - 1]) * (y - percent[i - 1]);
        return Math.max(1, (long) v);
    }

    /** P(size <= x), 0..1. */
    public double cdf(double x) {
        if (x <= size[0]) return 0;
        for (int i = 1; i < size.length; i++) {
            if (x <= size[i]) return (percent[i - 1] + (percent[i] - percent[i - 1]) / (size[i] - size[i - 1]) * (x - size[i - 1])) / 100;
        }
        return 1;
    }

    public long largest() {
        return (long) size[size.length - 1];
    }
}
