package org.urdma.scenario.world;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.world.DeviceHost;
import org.urdma.switchemu.world.FlowResult;
import org.urdma.switchemu.world.MessageWorkload;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * A long fat path: two hosts through one switch at {@code rate} with {@code rtt} of propagation, one RC WRITE stream
 * of go-back-N with a window and a send queue deep enough for the whole bandwidth-delay product (100 Gbit/s × 80 ms
 * is 1 GB in flight), 4 KiB MTU. With described payloads (the default) frames carry headers and a payload
 * description and the memory is pattern memory, so this fits in a small heap; with bytes it needs the gigabytes.
 * Reports simulated time per wall time, the most bytes sent and not yet acknowledged, the memory the run took, whether
 * the destination verified, and a digest of the results and counters for comparing runs (same seed, same digest).
 */
public final class LongPath {
    public record Options(long rateBps, long rttNs, long durationNs, boolean described, long seed) {
        public Options {
            if (rateBps <= 0) throw new IllegalArgumentException("rate: must be > 0");
            if (rttNs < 0) throw new IllegalArgumentException("rtt: must be >= 0");
            if (durationNs <= 0) throw new IllegalArgumentException("duration: must be > 0");
        }
    }

    /** What a run measured. */
    public record Result(long simNs, long wallNs, long events, double goodputGbps, long unackedHighWater,
                         long unackedFrameBytes,
                         int framesHighWater, long framePoolBytes, long heapUsed, long rssBytes, boolean verified,
                         long digest, FlowResult flow) {
    }

    private static final long START = 1_000_000;
    private static final int MTU = 4096;
    private static final int MESSAGE = 16 << 20;
    private static final long SAMPLE_NS = 1_000_000;

    private LongPath() {
    }

    public static ResultTable table(Options o) {
        Result r = run(o);
        ResultTable t = new ResultTable(String.format(Locale.ROOT,
                "long path: 2 hosts @ %.0fG, RTT %.0f ms, RC WRITE go-back-N, 16 MiB messages, 4 KiB MTU, %s payloads",
                o.rateBps / 1e9, o.rttNs / 1e6, o.described ? "described" : "byte"),
                "sim_ms", "wall_ms", "sim_s_per_wall_s", "events_per_s", "goodput_gbps", "unacked_payload_max_mb", "unacked_frames_max_mb",
                "frames_high_water", "frame_pool_mb", "heap_used_mb", "rss_mb", "verified", "digest");
        t.row(String.format(Locale.ROOT, "%.1f", r.simNs / 1e6), String.format(Locale.ROOT, "%.0f", r.wallNs / 1e6),
                String.format(Locale.ROOT, "%.3f", (double) r.simNs / r.wallNs),
                String.format(Locale.ROOT, "%.0f", r.events * 1e9 / r.wallNs),
                String.format(Locale.ROOT, "%.2f", r.goodputGbps), mb(r.unackedHighWater), mb(r.unackedFrameBytes), r.framesHighWater,
                mb(r.framePoolBytes), mb(r.heapUsed), mb(r.rssBytes), r.verified, Long.toHexString(r.digest));
        return t;
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
    }

    public static Result run(Options o) {
        long bdp = o.rateBps / 8 * o.rttNs / 1_000_000_000L;
        int depth = (int) Math.min(Integer.MAX_VALUE / MESSAGE, bdp * 5 / 4 / MESSAGE + 2);
        int window = (int) Math.min(1 << 22, Math.max(512, bdp * 3 / 2 / MTU));
        int timeout = ackTimeoutFor(o.rttNs);
        long end = START + o.durationNs;
        try (World w = new World(o.seed, START)) {
            if (o.described) w.describePayloads();
            SwitchConfig sc = new SwitchConfig().bufferBytes(16_000_000);
            sc.port(new PortConfig().rateBps(o.rateBps));
            sc.port(new PortConfig().rateBps(o.rateBps));
            SwitchNode s = w.addSwitch("s1", sc);
            DeviceHost a = w.addDevice(DeviceConfig.named("a", 1).withWindow(window), MTU, 0);
            DeviceHost b = w.addDevice(DeviceConfig.named("b", 2).withWindow(window), MTU, 0);
            w.connect(a, s, 0, o.rateBps, o.rttNs / 4, null, null);
            w.connect(b, s, 1, o.rateBps, o.rttNs / 4, null, null);
            MessageWorkload m = new MessageWorkload(w, "a->b", a, b, MessageWorkload.Op.WRITE, QpType.RC, MESSAGE, depth,
                    0, end, LossRecovery.goBackN(), RateControl.none(),
                    MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_4096).withTimeout(timeout), o.seed);
            w.add(a, m, START);
            SoftQp qp = (SoftQp) m.qp();
            long[] unacked = {0};
            for (long t = START + SAMPLE_NS; t <= end; t += SAMPLE_NS) {
                w.at(t, () -> unacked[0] = Math.max(unacked[0], payloadSent(qp) - m.result().bytes()));
            }
            long wall0 = System.nanoTime();
            w.runUntilFinished(end + 4 * o.rttNs + 100_000_000L); // the open loop stops posting at end; drain it
            long wall = System.nanoTime() - wall0;
            FlowResult f = m.result();
            Runtime rt = Runtime.getRuntime();
            long heap = rt.totalMemory() - rt.freeMemory();
            long digest = f.hashCode();
            for (Counter k : Counter.values()) digest = digest * 31 + qp.counters().get(k);
            digest = digest * 31 + w.events();
            // the same packets as Ethernet frames: Ethernet, IPv4, UDP, BTH and ICRC around each 4 KiB
            long frameBytes = unacked[0] / MTU * (14 + 20 + 8 + 12 + MTU + 4);
            return new Result(w.now() - START, wall, w.events(), f.goodputGbps(), unacked[0], frameBytes,
                    w.framesInFlightHighWater(), w.framePoolBytes(), heap, rss(), Boolean.TRUE.equals(f.memoryVerified()),
                    digest, f);
        }
    }

    /**
     * Payload bytes the QP sent: its sent_bytes less a BTH per packet and a RETH per message (4096 packets each);
     * no loss here, so no retransmissions, and the responder side of this QP sends nothing.
     */
    private static long payloadSent(SoftQp qp) {
        long packets = qp.counters().get(Counter.SENT_PKTS);
        return qp.counters().get(Counter.SENT_BYTES) - 12 * packets - 16 * Math.ceilDiv(packets, MESSAGE / MTU);
    }

    /** Resident set of this process (Linux), or 0. */
    static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    /** The IB ACK timeout exponent (4.096 µs × 2^t) that outlasts two RTTs of {@code rttNs} and 10 ms of queueing. */
    static int ackTimeoutFor(long rttNs) {
        int t = 10;
        while (t < 31 && 4096L << t < 2 * rttNs + 10_000_000) t++;
        return t;
    }
}
