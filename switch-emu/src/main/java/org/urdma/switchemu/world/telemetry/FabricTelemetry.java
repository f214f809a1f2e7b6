package org.urdma.switchemu.world.telemetry;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;

/**
 * What a simulated run's fabric did, written beside its results: per switch port and priority the distribution of
 * the egress queue's length (sampled every {@code sampleNs} into an HdrHistogram) and optionally its time series;
 * every PFC pause a switch asserted, with its start, end and duration; each port's utilisation in both directions; and
 * per flow the CE marks and CNPs its QPs counted. It only reads the fabric, so a run gives the same results with it.
 * File formats: docs/reference/telemetry-files.md.
 */
public final class FabricTelemetry {
    /** Bytes a frame takes on the wire beyond its own (preamble, SFD, FCS, gap): the switch's default overhead. */
    public static final int WIRE_OVERHEAD = 24;
    /** Largest queue length the histograms hold exactly (longer ones saturate there), bytes. */
    private static final long HISTOGRAM_MAX = 1L << 36;

    /** Sample period of the queue lengths; whether to keep their time series too. */
    public record Options(long sampleNs, boolean series) {
        public Options {
            if (sampleNs < 1 || sampleNs > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("queue sample: must be 1 ns..2.1 s, was " + sampleNs + " ns");
            }
        }

        public static Options defaults() {
            return new Options(10_000, false);
        }
    }

    /** One flow's ECN echo: CE-marked packets its receiver got, CNPs its receiver sent and its sender's rate control heard. */
    public record FlowEcn(String flow, String from, String to, long ceMarked, long cnpsSent, long cnpsHandled) {
    }

    /** One PFC pause: the switch held XOFF towards the peer on (port, priority) from start to end (-1: still on). */
    public record Pause(String sw, int port, int priority, long startNs, long endNs) {
    }

    private final List<String> names = new ArrayList<>();
    private final List<SwitchCore> cores = new ArrayList<>();
    private final Options options;
    private final long startNs;
    /** [switch][port * 8 + priority]: a histogram once a sample was above 0, and the samples at 0. */
    private final Histogram[][] queues;
    private final long[][] zeros;
    private final long[][] lastSample;
    private final StringBuilder series = new StringBuilder();
    private final List<Pause> pauses = new ArrayList<>();
    private final long[][] xoffSince;
    private final long[][] startCounters;
    private long samples;

    /** Watches {@code switches} of {@code w} from {@code startNs} on. */
    public FabricTelemetry(World w, Map<String, SwitchNode> switches, long startNs, Options options) {
        this.options = options;
        this.startNs = startNs;
        int n = switches.size();
        queues = new Histogram[n][];
        zeros = new long[n][];
        lastSample = new long[n][];
        xoffSince = new long[n][];
        startCounters = new long[n][];
        int k = 0;
        for (Map.Entry<String, SwitchNode> e : switches.entrySet()) {
            SwitchCore core = e.getValue().core();
            names.add(e.getKey());
            cores.add(core);
            int slots = core.portCount() * 8;
            queues[k] = new Histogram[slots];
            zeros[k] = new long[slots];
            lastSample[k] = new long[slots];
            xoffSince[k] = new long[slots];
            java.util.Arrays.fill(xoffSince[k], -1);
            startCounters[k] = new long[core.portCount() * 4];
            int sw = k;
            core.observePfc(new SwitchCore.PfcObserver() {
                @Override
                public void onXoff(int port, int priority, long now) {
                    xoffSince[sw][port * 8 + priority] = now;
                }

                @Override
                public void onXon(int port, int priority, long now) {
                    long since = xoffSince[sw][port * 8 + priority];
                    if (since < 0) return;
                    pauses.add(new Pause(names.get(sw), port, priority, since - FabricTelemetry.this.startNs,
                            now - FabricTelemetry.this.startNs));
                    xoffSince[sw][port * 8 + priority] = -1;
                }
            });
            k++;
        }
        w.at(startNs, this::markStart);
        w.every(startNs + options.sampleNs, options.sampleNs, this::sample);
    }

    private void markStart() {
        for (int s = 0; s < cores.size(); s++) {
            SwitchCore core = cores.get(s);
            for (int p = 0; p < core.portCount(); p++) {
                PortCounters c = core.counters(p);
                startCounters[s][p * 4] = c.txBytes;
                startCounters[s][p * 4 + 1] = c.txFrames;
                startCounters[s][p * 4 + 2] = c.rxBytes;
                startCounters[s][p * 4 + 3] = c.rxFrames;
            }
        }
    }

    private void sample() {
        samples++;
        for (int s = 0; s < cores.size(); s++) {
            SwitchCore core = cores.get(s);
            for (int p = 0; p < core.portCount(); p++) {
                for (int q = 0; q < 8; q++) {
                    int i = p * 8 + q;
                    long bytes = core.queueBytes(p, q);
                    if (bytes == 0) {
                        zeros[s][i]++;
                    } else {
                        if (queues[s][i] == null) queues[s][i] = new Histogram(HISTOGRAM_MAX, 2);
                        queues[s][i].recordValue(Math.min(bytes, HISTOGRAM_MAX));
                    }
                    if (options.series && bytes != lastSample[s][i]) {
                        series.append(samples * options.sampleNs).append(',').append(names.get(s)).append(',').append(p)
                                .append(',').append(q).append(',').append(bytes).append('\n');
                    }
                    lastSample[s][i] = bytes;
                }
            }
        }
    }

    /** The PFC pauses so far; one still on at {@code endNs} (from the run's start) is given that end and endNs -1. */
    public List<Pause> pauses(long endNs) {
        List<Pause> out = new ArrayList<>(pauses);
        for (int s = 0; s < cores.size(); s++) {
            for (int i = 0; i < xoffSince[s].length; i++) {
                if (xoffSince[s][i] >= 0) out.add(new Pause(names.get(s), i / 8, i % 8, xoffSince[s][i] - startNs, -1));
            }
        }
        return out;
    }

    /**
     * The files for a run that ended at {@code endNs} (absolute): name to contents. {@code flows} gives the CE marks
     * and CNPs per flow (empty: no flows.csv row but its header).
     */
    public Map<String, String> files(long endNs, List<FlowEcn> flows) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("queues.csv", queues());
        if (options.series) out.put("queue_series.csv", "t_ns,switch,port,priority,bytes\n" + series);
        List<Pause> all = pauses(endNs);
        out.put("pfc.csv", pfcCsv(all, endNs));
        out.put("pfc.txt", pfcText(all));
        out.put("links.csv", links(endNs));
        StringBuilder f = new StringBuilder("flow,from,to,ce_marked,cnps_sent,cnps_handled\n");
        for (FlowEcn e : flows) {
            f.append(e.flow).append(',').append(e.from).append(',').append(e.to).append(',').append(e.ceMarked).append(',')
                    .append(e.cnpsSent).append(',').append(e.cnpsHandled).append('\n');
        }
        out.put("flows_ecn.csv", f.toString());
        return out;
    }

    private String queues() {
        StringBuilder b = new StringBuilder("switch,port,priority,samples,zero_pct,mean_bytes,p50_bytes,p95_bytes,p99_bytes,max_bytes\n");
        for (int s = 0; s < cores.size(); s++) {
            for (int i = 0; i < queues[s].length; i++) {
                Histogram h = queues[s][i];
                if (h == null) continue; // never above 0: left out
                Histogram all = h.copy();
                all.recordValueWithCount(0, zeros[s][i]);
                long n = all.getTotalCount();
                b.append(names.get(s)).append(',').append(i / 8).append(',').append(i % 8).append(',').append(n).append(',')
                        .append(f(100.0 * zeros[s][i] / n)).append(',').append(f(all.getMean())).append(',')
                        .append(all.getValueAtPercentile(50)).append(',').append(all.getValueAtPercentile(95)).append(',')
                        .append(all.getValueAtPercentile(99)).append(',').append(all.getMaxValue()).append('\n');
            }
        }
        return b.toString();
    }

    private static String pfcCsv(List<Pause> all, long endNs) {
        StringBuilder b = new StringBuilder("switch,port,priority,start_ns,end_ns,duration_ns\n");
        for (Pause p : all) {
            long end = p.endNs < 0 ? -1 : p.endNs;
            b.append(p.sw).append(',').append(p.port).append(',').append(p.priority).append(',').append(p.startNs).append(',')
                    .append(end).append(',').append(p.endNs < 0 ? "" : Long.toString(p.endNs - p.startNs)).append('\n');
        }
        return b.toString();
    }

    /** As HPCC's pfc.txt, one line per change: time (ns), switch, port, priority, 1 for pause or 0 for resume. */
    private static String pfcText(List<Pause> all) {
        List<long[]> events = new ArrayList<>();
        List<String> who = new ArrayList<>();
        for (Pause p : all) {
            who.add(p.sw);
            events.add(new long[] {p.startNs, who.size() - 1, p.port, p.priority, 1});
            if (p.endNs >= 0) events.add(new long[] {p.endNs, who.size() - 1, p.port, p.priority, 0});
        }
        events.sort((a, c) -> a[0] != c[0] ? Long.compare(a[0], c[0]) : Long.compare(a[1], c[1]));
        StringBuilder b = new StringBuilder();
        for (long[] e : events) {
            b.append(e[0]).append(' ').append(who.get((int) e[1])).append(' ').append(e[2]).append(' ').append(e[3])
                    .append(' ').append(e[4]).append('\n');
        }
        return b.toString();
    }

    private String links(long endNs) {
        StringBuilder b = new StringBuilder("switch,port,rate_bps,tx_bytes,tx_frames,rx_bytes,rx_frames,tx_util,rx_util\n");
        double seconds = Math.max(1, endNs - startNs) * 1e-9;
        for (int s = 0; s < cores.size(); s++) {
            SwitchCore core = cores.get(s);
            for (int p = 0; p < core.portCount(); p++) {
                PortCounters c = core.counters(p);
                long[] at = startCounters[s];
                long txB = c.txBytes - at[p * 4];
                long txF = c.txFrames - at[p * 4 + 1];
                long rxB = c.rxBytes - at[p * 4 + 2];
                long rxF = c.rxFrames - at[p * 4 + 3];
                long rate = core.portRateBps(p);
                b.append(names.get(s)).append(',').append(p).append(',').append(rate).append(',').append(txB).append(',')
                        .append(txF).append(',').append(rxB).append(',').append(rxF).append(',')
                        .append(f4(util(txB, txF, rate, seconds))).append(',').append(f4(util(rxB, rxF, rate, seconds))).append('\n');
            }
        }
        return b.toString();
    }

    /** Share of the time a port at {@code rate} spends on {@code bytes} in {@code frames} (each with its wire overhead). */
    static double util(long bytes, long frames, long rate, double seconds) {
        return (bytes + frames * (double) WIRE_OVERHEAD) * 8 / (rate * seconds);
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String f4(double v) {
        return String.format(Locale.ROOT, "%.4f", v);
    }
}
