package org.urdma.scenario.world;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.world.DeviceHost;
import org.urdma.switchemu.world.FlowWorkload;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;
import org.urdma.switchemu.world.fct.FctRecords;
import org.urdma.switchemu.world.fct.FlowGenerator;
import org.urdma.switchemu.world.fct.Flows;
import org.urdma.switchemu.world.telemetry.FabricTelemetry;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.PathMtu;

/**
 * Flow completion times of a flow list on a topology in the simulated world, once per congestion control: every flow
 * an RC WRITE on a pooled QP of its host pair (see {@link FlowWorkload}), its FCT against its ideal (see
 * {@link FctRecords}); results as HPCC's fct.txt, as CSV, and as HPCC's Figure 11 table (flows sorted by size into
 * groups of {@code step} % of the flows; per group its largest size and the p50/p95/p99 slowdown). Everything in the
 * results is simulated, so the same inputs and seed give the same bytes.
 */
public final class Fct {
    /** How long the clock may run past the last flow's start for the stragglers to finish. */
    public static final long DRAIN_NS = 1_000_000_000L;
    private static final long STEP_NS = 100_000;

    /** One CC's run: fct.txt and CSV text, each flow's size and slowdown (-1: not finished), and the run's counters. */
    public record Run(String cc, String fctText, String csv, long[] size, double[] slowdown, boolean[] background, int completed,
                      int failed, int queuePairs, int inFlightHighWater, long events, long simulatedNs, long pfcFrames,
                      long drops, long ecnMarked, Map<String, String> telemetry) {
    }

    private Fct() {
    }

    /** Runs {@code flows} (host numbers index {@code t}'s hosts in file order) under {@code cc}. */
    public static Run run(Topology t, Flows flows, String cc, long seed, int mtu, boolean realBytes, long untilNs) {
        return run(t, flows, cc, seed, mtu, realBytes, untilNs, FabricTelemetry.Options.defaults());
    }

    /** As above, with the fabric's telemetry sampled as {@code telemetry} says (see {@link FabricTelemetry}). */
    public static Run run(Topology t, Flows flows, String cc, long seed, int mtu, boolean realBytes, long untilNs,
                          FabricTelemetry.Options telemetry) {
        List<String> names = new ArrayList<>(t.hosts().keySet());
        long hostRate = 0;
        for (String h : names) hostRate = Math.max(hostRate, t.hostLink(h).rateBps());
        RateControl.Factory ccf = RateControl.named(Incast.withLine(cc, hostRate));
        long first = flows.count() == 0 ? 0 : flows.startNs(0);
        try (World w = new World(seed, Math.max(0, first - 1_000))) {
            if (!realBytes) w.describePayloads();
            TopologyWorld tw = new TopologyWorld(w, t, h -> new DeviceConfig(h.name(), TopologyWorld.mac(h), 8192, 64, 4, 65_536,
                    16, 16, 64, 512, 64, LossRecovery.goBackN()), mtu, ccf.create().wantsTelemetry());
            DeviceHost[] hosts = new DeviceHost[names.size()];
            for (int i = 0; i < hosts.length; i++) hosts[i] = tw.hosts().get(names.get(i));
            FlowWorkload fw = new FlowWorkload(w, hosts, flows, LossRecovery.goBackN(), ccf,
                    MemoryFabric.Connection.defaults().withMtu(PathMtu.ofBytes(mtu)), seed);
            FabricTelemetry fabric = new FabricTelemetry(w, tw.switches(), Math.max(0, first - 1_000), telemetry);
            long last = flows.count() == 0 ? first : flows.startNs(flows.count() - 1);
            long until = untilNs > 0 ? untilNs : last + DRAIN_NS;
            while (!fw.done() && w.now() < until) w.runUntil(Math.min(until, w.now() + STEP_NS));
            FctRecords rec = new FctRecords(t, names, mtu);
            StringBuilder fct = new StringBuilder();
            StringBuilder csv = new StringBuilder(FctRecords.CSV_HEADER);
            long[] size = new long[flows.count()];
            double[] slowdown = new double[flows.count()];
            boolean[] background = new boolean[flows.count()];
            for (int i = 0; i < flows.count(); i++) {
                size[i] = flows.size(i);
                background[i] = flows.dport(i) != FlowGenerator.INCAST_DPORT;
                long end = fw.finishNs(i);
                if (end < 0) {
                    slowdown[i] = -1;
                    continue;
                }
                int s = flows.src(i);
                int d = flows.dst(i);
                int sport = LinkFraming.udpSourcePort(fw.destQpn(i));
                fct.append(rec.fctLine(s, d, sport, flows.dport(i), size[i], flows.startNs(i), end));
                csv.append(rec.csvLine(i, s, d, sport, flows.dport(i), size[i], flows.startNs(i), end));
                slowdown[i] = (end - flows.startNs(i)) / (double) rec.idealNs(s, d, size[i]);
            }
            long pfc = 0;
            long drops = 0;
            long marked = 0;
            for (SwitchNode n : tw.switches().values()) {
                for (int p = 0; p < n.core().portCount(); p++) {
                    PortCounters c = n.core().counters(p);
                    pfc += c.pfcFramesTx;
                    drops += c.totalDrops();
                    marked += c.ecnMarked;
                }
            }
            List<FabricTelemetry.FlowEcn> ecn = new ArrayList<>();
            for (int i = 0; i < flows.count(); i++) {
                if (fw.finishNs(i) < 0) continue;
                ecn.add(new FabricTelemetry.FlowEcn(Integer.toString(i), names.get(flows.src(i)), names.get(flows.dst(i)),
                        fw.ceMarked(i), fw.cnpsSent(i), fw.cnpsHandled(i)));
            }
            return new Run(cc, fct.toString(), csv.toString(), size, slowdown, background, fw.completed(), fw.failed(),
                    fw.queuePairs(), fw.inFlightHighWater(), w.events(), w.now() - first, pfc, drops, marked,
                    fabric.files(w.now(), ecn));
        }
    }

    /** Slowdown per size group of one run: {@code [group][0]} largest size, then p50, p95, p99 (slowdown below 1 as 1). */
    public static double[][] buckets(Run r, int stepPercent) {
        boolean anyBackground = false;
        for (int i = 0; i < r.size.length; i++) anyBackground |= r.background[i] && r.slowdown[i] >= 0;
        List<long[]> done = new ArrayList<>();
        for (int i = 0; i < r.size.length; i++) {
            if (r.slowdown[i] >= 0 && (r.background[i] || !anyBackground)) done.add(new long[] {r.size[i], i});
        }
        done.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int n = done.size();
        int groups = 100 / stepPercent;
        double[][] out = new double[groups][];
        for (int g = 0; g < groups; g++) {
            int lo = (int) ((long) g * stepPercent * n / 100);
            int hi = (int) ((long) (g + 1) * stepPercent * n / 100);
            if (hi <= lo) {
                out[g] = new double[] {0, Double.NaN, Double.NaN, Double.NaN};
                continue;
            }
            double[] s = new double[hi - lo];
            for (int k = lo; k < hi; k++) s[k - lo] = Math.max(1, r.slowdown[(int) done.get(k)[1]]);
            Arrays.sort(s);
            out[g] = new double[] {done.get(hi - 1)[0], pctl(s, 0.5), pctl(s, 0.95), pctl(s, 0.99)};
        }
        return out;
    }

    /** fct_analysis.py's percentile: the element at floor(n × p). */
    static double pctl(double[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
    }

    /** The Figure 11 table: a row per size group, p50/p95/p99 slowdown per CC. */
    public static ResultTable table(String title, List<Run> runs, int stepPercent) {
        List<String> cols = new ArrayList<>(List.of("pct", "size"));
        for (Run r : runs) {
            for (String p : List.of("p50", "p95", "p99")) cols.add(r.cc + "_" + p);
        }
        ResultTable t = new ResultTable(title, cols.toArray(new String[0]));
        List<double[][]> b = new ArrayList<>();
        for (Run r : runs) b.add(buckets(r, stepPercent));
        int groups = 100 / stepPercent;
        for (int g = 0; g < groups; g++) {
            List<Object> row = new ArrayList<>();
            row.add(String.format(Locale.ROOT, "%.2f", g * stepPercent / 100.0));
            row.add((long) b.get(0)[g][0]);
            for (double[][] x : b) {
                for (int k = 1; k <= 3; k++) row.add(Double.isNaN(x[g][k]) ? "-" : String.format(Locale.ROOT, "%.3f", x[g][k]));
            }
            t.row(row.toArray());
        }
        for (Run r : runs) {
            t.note(String.format(Locale.ROOT, "%s: %d flows completed, %d failed, %d QP pairs (at most %d flows in flight), "
                    + "%.3f ms simulated, %d events, %d PFC frames, %d drops, %d ECN marks", r.cc, r.completed, r.failed,
                    r.queuePairs, r.inFlightHighWater, r.simulatedNs / 1e6, r.events, r.pfcFrames, r.drops, r.ecnMarked));
        }
        t.note("pct: the group's first flow-size percentile (flows sorted by size, " + stepPercent + " % per group; incast flows "
                + "(dport 200) left out when there are others); size: its largest flow; slowdown = FCT / ideal, below 1 counted as 1");
        return t;
    }
}
