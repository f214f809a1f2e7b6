package org.urdma.scenario.world;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.urdma.switchemu.core.ClassifyMode;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.switchemu.world.DeviceHost;
import org.urdma.switchemu.world.MessageWorkload;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.CnpConfig;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * N:1 incast of urdma RC WRITE streams with DCQCN (or another rate control by name: DCTCP, TIMELY, their
 * {@code +w} variants, HPCC, for which every port stamps in-band telemetry) through one switch whose port to the receiver is the bottleneck: RED/ECN marks at that port's
 * egress, the receiver's engine answers CE with CNPs, each sender's rate control cuts and recovers. Senders start {@code spacingNs} apart; run with PFC on the flows' priority (lossless) and without
 * (lossy). Reports per-flow throughput over time, Jain's fairness index over the last half, the bottleneck queue
 * over time (sampled every {@code queueSampleNs}), PFC frames and drops.
 */
public final class Incast {
    /**
     * Senders, link rate (every link), the DCQCN spec (line is set to the link rate unless given), message size,
     * RED kmin/kmax/pmax at the bottleneck, simulated time, sender start spacing, throughput and queue sample
     * periods, which PFC settings to run, seed.
     */
    public record Options(int senders, long rateBps, String cc, int messageBytes, long bufferBytes, long kminBytes,
                          long kmaxBytes, double pmax, long durationNs, long spacingNs, long sampleNs, long queueSampleNs,
                          boolean[] pfc, long seed) {
        public Options {
            if (senders < 1 || senders > 62) throw new IllegalArgumentException("senders: must be 1..62, was " + senders);
            if (rateBps <= 0) throw new IllegalArgumentException("rate: must be > 0");
            if (messageBytes < 1) throw new IllegalArgumentException("size: must be >= 1 byte");
            if (bufferBytes < 64_000) throw new IllegalArgumentException("buffer: must be >= 64 KB, was " + bufferBytes);
            if (kminBytes < 0 || kmaxBytes <= kminBytes) throw new IllegalArgumentException("kmax: must be above kmin");
            if (!(pmax > 0 && pmax <= 1)) throw new IllegalArgumentException("pmax: must be in (0, 1]");
            if (durationNs <= 0) throw new IllegalArgumentException("duration: must be > 0");
            if (spacingNs < 0 || (long) (senders - 1) * spacingNs >= durationNs / 2) {
                throw new IllegalArgumentException("spacing: every sender must start in the first half of the run");
            }
            if (sampleNs <= 0 || queueSampleNs <= 0) throw new IllegalArgumentException("sample: must be > 0");
            if (pfc.length == 0) throw new IllegalArgumentException("pfc: give on, off or both");
            RateControl.named(cc); // a bad spec fails here, naming its option
        }

        /**
         * 8:1 at 10 Gbit/s with ns3-rdma's DCQCN defaults (RPTimer 1.5 ms: 8 flows take about a second to converge),
         * 1.5 s, flows 20 ms apart; RED 5 KB / 200 KB / 1 % as in {@code DcqcnFairnessTest}.
         */
        public static Options defaults() {
            return new Options(8, 10_000_000_000L, "dcqcn", 16 * 1024, 1_000_000, 5_000, 200_000, 0.01, 1_500_000_000L,
                    20_000_000L, 5_000_000L, 10_000, new boolean[] {true, false}, 1);
        }

        /**
         * The CI form of {@code senders}:1: the same world with DCQCN's increase timer 15× faster (rpTimer 100 µs,
         * hence the fast-recovery and hyper-increase stages too) and the byte counter off, so convergence takes tens
         * of simulated milliseconds instead of a second; 120 ms, flows 2 ms apart.
         */
        public static Options quick(int senders) {
            return new Options(senders, 10_000_000_000L, "dcqcn:rpTimer=100,byteCounter=0", 16 * 1024, 1_000_000, 5_000, 200_000,
                    0.1, 120_000_000L, 2_000_000L, 1_000_000L, 10_000, new boolean[] {true, false}, 1);
        }

        public Options withPfc(boolean... modes) {
            return new Options(senders, rateBps, cc, messageBytes, bufferBytes, kminBytes, kmaxBytes, pmax, durationNs, spacingNs,
                    sampleNs, queueSampleNs, modes, seed);
        }
    }

    /** Throughput of each flow (Gbit/s) in each sample period ending at {@code timesNs[i]} (from the start). */
    public record Series(boolean pfc, long[] timesNs, double[][] flowGbps, long[] queueTimesNs, long[] queueBytes) {
    }

    /** One run: the summary and the time series. */
    /**
     * One run: the summary and the time series. {@code utilisation}: the share of the last half the bottleneck port
     * spent sending (frames with their preamble, FCS and gap). {@code pauseFramesRx}: PFC frames the senders received.
     */
    public record Run(boolean pfc, double jain, double goodputGbps, double[] flowGbps, double meanQueueBytes,
                      long maxQueueBytes, double fractionAboveKmax, double fractionBelowKmin, long pfcFrames,
                      long drops, long retransmitted, long cnps, long errors, Series series, double utilisation) {
    }

    static final int PRIO = 3;
    /** Preamble, SFD, FCS and inter-frame gap a frame takes on the wire beyond its bytes (the switch's default). */
    private static final int WIRE_OVERHEAD = 24;
    private static final long START = 1_000_000;

    private Incast() {
    }

    public static List<Run> runs(Options o) {
        List<Run> out = new ArrayList<>();
        for (boolean pfc : o.pfc) out.add(run(o, pfc));
        return out;
    }

    public static ResultTable table(Options o, List<Run> runs) {
        ResultTable t = new ResultTable(String.format(Locale.ROOT,
                "incast: %d:1 RC WRITE %d-byte messages at %.0f Gbit/s, cc %s, RED %d/%d bytes %.1f %%, %.0f ms",
                o.senders, o.messageBytes, o.rateBps / 1e9, o.cc, o.kminBytes, o.kmaxBytes, o.pmax * 100,
                o.durationNs / 1e6),
                "pfc", "jain_last_half", "goodput_gbps", "flow_min_gbps", "flow_max_gbps", "queue_mean_kb",
                "queue_max_kb", "above_kmax_pct", "below_kmin_pct", "pfc_frames", "drops", "retransmitted", "cnps",
                "errors", "util_pct");
        for (Run r : runs) {
            double min = Double.MAX_VALUE;
            double max = 0;
            for (double g : r.flowGbps) {
                min = Math.min(min, g);
                max = Math.max(max, g);
            }
            t.row(r.pfc ? "on" : "off", f(4, r.jain), f(2, r.goodputGbps), f(3, min), f(3, max),
                    f(1, r.meanQueueBytes / 1e3), f(1, r.maxQueueBytes / 1e3), f(2, 100 * r.fractionAboveKmax),
                    f(2, 100 * r.fractionBelowKmin), r.pfcFrames, r.drops, r.retransmitted, r.cnps, r.errors,
                    f(2, 100 * r.utilisation));
        }
        return t.note("last half: per-flow throughput, Jain's index and queue statistics from "
                + String.format(Locale.ROOT, "%.0f ms", o.durationNs / 2e6) + " to the end; pfc_frames: PFC frames the switch sent");
    }

    private static String f(int digits, double v) {
        return String.format(Locale.ROOT, "%." + digits + "f", v);
    }

    /** Jain's fairness index of {@code x}: 1 when all are equal, 1/n when one has everything. */
    public static double jain(double[] x) {
        double sum = 0;
        double squares = 0;
        for (double v : x) {
            sum += v;
            squares += v * v;
        }
        return squares == 0 ? 0 : sum * sum / (x.length * squares);
    }

    public static Run run(Options o, boolean pfc) {
        int n = o.senders;
        int bottleneck = n;
        try (World w = new World(o.seed, START)) {
            SwitchConfig sc = new SwitchConfig().bufferBytes(o.bufferBytes).reserveBytes(1_500);
            for (int i = 0; i <= n; i++) {
                PortConfig p = new PortConfig().mac(0x02_00_00_00_B0_00L + i).rateBps(o.rateBps)
                        .classify(ClassifyMode.DEFAULT).defaultPriority(PRIO).headroomBytes(50_000)
                        .ecn(1 << PRIO, o.kminBytes, o.kmaxBytes, o.pmax).intStamp(stampsInt(o.cc));
                if (pfc) p.pfcMask(1 << PRIO);
                sc.port(p);
            }
            SwitchNode s = w.addSwitch("s1", sc);
            DeviceConfig sinkConfig = DeviceConfig.named("sink", 1);
            if (echoesEveryMark(o.cc)) sinkConfig = sinkConfig.withCnp(new CnpConfig(0, 0));
            DeviceHost sink = w.addDevice(sinkConfig, 1024, PRIO);
            w.connect(sink, s, bottleneck, o.rateBps, 1_000, null, null);
            RateControl.Factory cc = RateControl.named(withLine(o.cc, o.rateBps));
            MessageWorkload[] m = new MessageWorkload[n];
            for (int i = 0; i < n; i++) {
                DeviceHost h = w.addDevice(DeviceConfig.named("h" + i, 0x10 + i), 1024, PRIO);
                w.connect(h, s, i, o.rateBps, 1_000, null, null);
                m[i] = new MessageWorkload(w, "h" + i, h, sink, MessageWorkload.Op.WRITE, QpType.RC, o.messageBytes, 8,
                        0, START + o.durationNs, LossRecovery.goBackN(), cc,
                        MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024).withTimeout(10).withRetryCnt(7),
                        o.seed + i);
                w.add(h, m[i], START + i * o.spacingNs);
            }
            int samples = (int) (o.durationNs / o.sampleNs);
            long[] times = new long[samples];
            double[][] gbps = new double[n][samples];
            long[] last = new long[n];
            int[] sample = {0};
            w.every(START + o.sampleNs, o.sampleNs, () -> {
                int k = sample[0];
                if (k >= samples) return;
                times[k] = w.now() - START;
                for (int i = 0; i < n; i++) {
                    long b = m[i].result().bytes();
                    gbps[i][k] = (b - last[i]) * 8.0 / o.sampleNs;
                    last[i] = b;
                }
                sample[0]++;
            });
            SwitchCore core = s.core();
            int queueSamples = (int) (o.durationNs / o.queueSampleNs);
            long[] qTimes = new long[queueSamples];
            long[] q = new long[queueSamples];
            int[] qs = {0};
            w.every(START + o.queueSampleNs, o.queueSampleNs, () -> {
                int k = qs[0];
                if (k >= queueSamples) return;
                qTimes[k] = w.now() - START;
                q[k] = core.queueBytes(bottleneck, PRIO);
                qs[0]++;
            });
            long[] atHalf = new long[n];
            long[] portAtHalf = new long[2];
            w.at(START + o.durationNs / 2, () -> {
                for (int i = 0; i < n; i++) atHalf[i] = m[i].result().bytes();
                portAtHalf[0] = core.counters(bottleneck).txBytes;
                portAtHalf[1] = core.counters(bottleneck).txFrames;
            });
            w.runUntil(START + o.durationNs);

            double[] flow = new double[n];
            double total = 0;
            long retransmitted = 0;
            long errors = 0;
            for (int i = 0; i < n; i++) {
                flow[i] = (m[i].result().bytes() - atHalf[i]) * 8.0 / (o.durationNs - o.durationNs / 2);
                total += flow[i];
                retransmitted += m[i].result().retransmitted();
                errors += m[i].result().errors();
            }
            double sum = 0;
            long max = 0;
            int counted = 0;
            int above = 0;
            int below = 0;
            for (int k = 0; k < qs[0]; k++) {
                if (qTimes[k] < o.durationNs / 2) continue;
                counted++;
                sum += q[k];
                max = Math.max(max, q[k]);
                if (q[k] > o.kmaxBytes) above++;
                if (q[k] < o.kminBytes) below++;
            }
            long pfcFrames = 0;
            long drops = 0;
            for (int p = 0; p <= n; p++) {
                PortCounters c = core.counters(p);
                pfcFrames += c.pfcFramesTx;
                drops += c.totalDrops();
            }
            long cnps = sink.device().counters().get(org.urdma.transport.counters.Counter.CNP_SENT);
            PortCounters out = core.counters(bottleneck);
            double busyBits = ((out.txBytes - portAtHalf[0]) + (out.txFrames - portAtHalf[1]) * (double) WIRE_OVERHEAD) * 8;
            double utilisation = busyBits / (o.rateBps * ((o.durationNs - o.durationNs / 2) * 1e-9));
            return new Run(pfc, jain(flow), total, flow, counted == 0 ? 0 : sum / counted, max,
                    counted == 0 ? 0 : (double) above / counted, counted == 0 ? 0 : (double) below / counted, pfcFrames,
                    drops, retransmitted, cnps, errors, new Series(pfc, times, gbps, qTimes, q), utilisation);
        }
    }

    /**
     * DCQCN's, DCTCP's and TIMELY's line rate defaults to 100 Gbit/s; in a world it is the host's link rate unless the
     * spec says.
     */
    static String withLine(String cc, long rateBps) {
        boolean lined = cc.startsWith("dcqcn") || cc.startsWith("dctcp") || cc.startsWith("timely") || cc.startsWith("hpcc");
        if (!lined || cc.contains("line=")) return cc;
        String line = "line=" + rateBps;
        return cc.contains(":") ? cc + "," + line : cc + ":" + line;
    }

    /** HPCC reads the switch's in-band telemetry: every port stamps it. */
    static boolean stampsInt(String cc) {
        return cc.startsWith("hpcc");
    }

    /**
     * DCTCP counts marked packets, so the receiver answers every CE-marked packet with a CNP (rdma-hw.cc's ECN-Echo on
     * every ACK) instead of DCQCN's one per 50 µs.
     */
    static boolean echoesEveryMark(String cc) {
        return cc.startsWith("dctcp");
    }

    /** The time series as CSV: one row per throughput sample, flows as columns, and the queue at that time. */
    public static String seriesCsv(List<Run> runs) {
        StringBuilder sb = new StringBuilder("pfc,t_ms");
        int n = runs.get(0).flowGbps.length;
        for (int i = 0; i < n; i++) sb.append(",h").append(i).append("_gbps");
        sb.append(",queue_bytes\n");
        for (Run r : runs) {
            Series s = r.series;
            int qk = 0;
            for (int k = 0; k < s.timesNs.length; k++) {
                while (qk + 1 < s.queueTimesNs.length && s.queueTimesNs[qk + 1] <= s.timesNs[k]) qk++;
                sb.append(r.pfc ? "on" : "off").append(',').append(f(3, s.timesNs[k] / 1e6));
                for (int i = 0; i < n; i++) sb.append(',').append(f(4, s.flowGbps[i][k]));
                sb.append(',').append(s.queueBytes.length == 0 ? 0 : s.queueBytes[qk]).append('\n');
            }
        }
        return sb.toString();
    }
}
