package org.urdma.scenario.world;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.switchemu.world.DeviceHost;
import org.urdma.switchemu.world.MessageWorkload;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;
import org.urdma.transport.cm.WanOffer;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * The URDMA paper's matrix in simulated time: two hosts through one switch, every link at the bottleneck rate, half
 * the RTT of propagation each way, random loss on the data direction only (switch to receiver), one RC WRITE stream
 * with the whole bandwidth-delay product in flight, described payloads and pattern memory. Each row is one reliability,
 * WAN flags and rate control ({@link #ROWS}); each cell a world of its own, same seed.
 * Goodput counts the payload bytes the receiver placed in {@code [warm-up end, warm-up end + sim)}, each once (the
 * {@code placed_bytes} counter: out of order too, no resent duplicates, no parity), the warm-up being two RTTs (slow
 * start of the first messages is not the path's steady state). Bytes of completed messages would lag the path by up to
 * a round trip behind each loss (completions keep PSN order), which over a window of a few RTTs moved cells by ±20 %
 * (a 10 Gbit/s cell read 1.17 of the bottleneck).
 */
public final class WanSim {
    private static final int TS_RETH_SACK = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;

    /**
     * One row of the table: its name, the loss recovery by name, the UETH flags both ends agree on, the FEC group (0,0:
     * adaptive) and the rate control by name ({@code {rate}} stands for the bottleneck in bit/s).
     */
    public record Row(String name, String reliability, int uethFlags, int fecData, int fecParity, String cc) {
        public Row {
            LossRecovery.named(reliability); // refused here, by name, not in the middle of a run
            new WanOffer(uethFlags, "none", 0, fecData, fecParity);
            RateControl.named(cc.replace("{rate}", "1000000000"));
        }

        WanOffer wan() {
            return new WanOffer(uethFlags, "none", 0, fecData, fecParity);
        }

        RateControl.Factory rateControl(long rateBps) {
            return RateControl.named(cc.replace("{rate}", Long.toString(rateBps)));
        }
    }

    /** The paper's rows, in its order. */
    public static final List<Row> ROWS = List.of(
            new Row("go-back-0", "goback0", 0, 0, 0, "none"),
            new Row("go-back-N", "gobackn", 0, 0, 0, "none"),
            new Row("SACK", "sack", TS_RETH_SACK, 0, 0, "none"),
            new Row("SACK+FEC", "sack", TS_RETH_SACK | OpcodeTable.UETH_FEC, 0, 0, "none"),
            new Row("SACK+FEC+RRCC", "sack", TS_RETH_SACK | OpcodeTable.UETH_FEC, 0, 0, "rrcc:ref={rate}"));

    /** The rows named in {@code names} (comma separated, case-insensitive), in table order; unknown names refused. */
    public static List<Row> rows(String names) {
        List<String> wanted = new ArrayList<>();
        for (String n : names.split(",")) {
            String w = n.strip().toLowerCase(Locale.ROOT);
            if (ROWS.stream().noneMatch(r -> r.name.toLowerCase(Locale.ROOT).equals(w))) {
                throw new IllegalArgumentException("--rows: unknown row '" + n.strip() + "' (known: "
                        + String.join(", ", ROWS.stream().map(Row::name).toList()) + ")");
            }
            if (wanted.contains(w)) throw new IllegalArgumentException("--rows: '" + n.strip() + "' is given twice");
            wanted.add(w);
        }
        return ROWS.stream().filter(r -> wanted.contains(r.name.toLowerCase(Locale.ROOT))).toList();
    }

    public record Options(long rateBps, List<Double> rttsMs, List<Double> lossesPercent, long simNs, List<Row> rows,
                          long seed) {
        public Options {
            if (rateBps < 1_000_000 || rateBps > 400_000_000_000L) throw new IllegalArgumentException("--rate: must be 1M..400G bit/s, was " + rateBps);
            if (rttsMs.isEmpty()) throw new IllegalArgumentException("--rtt: give at least one RTT");
            for (double r : rttsMs) if (!(r >= 0 && r <= 1000)) throw new IllegalArgumentException("--rtt: " + r + " must be 0..1000 ms");
            if (lossesPercent.isEmpty()) throw new IllegalArgumentException("--loss: give at least one loss rate");
            for (double l : lossesPercent) if (!(l >= 0 && l < 100)) throw new IllegalArgumentException("--loss: " + l + " must be 0..<100 %");
            if (simNs <= 0) throw new IllegalArgumentException("--sim-ms: must be > 0");
            if (rows.isEmpty()) throw new IllegalArgumentException("--rows: give at least one row");
            rttsMs = List.copyOf(rttsMs);
            lossesPercent = List.copyOf(lossesPercent);
            rows = List.copyOf(rows);
        }
    }

    /**
     * One cell: bytes delivered in the measured window of {@code measuredNs}; packets the sender sent again and the
     * receiver rebuilt from parity (-1: this engine has no FEC counter); whether every completed message's bytes are
     * the source's; the link's random drops; wall time; what to know ("" when nothing); the sender's policies as the
     * engine names them (what actually ran).
     */
    public record Cell(String row, String policies, double rttMs, double lossPercent, long rateBps, long bytes, long measuredNs,
                       long retransmitted, long fecRepaired, boolean verified, long drops, long wallNs, String note) {
        public double goodputGbps() {
            return measuredNs <= 0 ? 0 : bytes * 8.0 / measuredNs;
        }

        public double fraction() {
            return goodputGbps() * 1e9 / rateBps;
        }
    }

    static final long START = 1_000_000;
    static final int MTU = 4096;

    private WanSim() {
    }

    /** Every cell, RTT outermost, then loss, then row. */
    public static List<Cell> run(Options o) {
        List<Cell> cells = new ArrayList<>();
        for (double rtt : o.rttsMs) {
            for (double loss : o.lossesPercent) {
                for (Row r : o.rows) cells.add(cell(o, r, rtt, loss));
            }
        }
        return cells;
    }

    /** Messages of about 0.3 ms at the rate (a power of two, 64 KiB..16 MiB): fine-grained goodput, few WQEs. */
    static int messageBytes(long rateBps) {
        long target = rateBps / 8 * 3 / 10_000;
        int size = 64 << 10;
        while (size < (16 << 20) && size * 2L <= target) size *= 2;
        return size;
    }

    public static Cell cell(Options o, Row row, double rttMs, double lossPercent) {
        long rttNs = Math.round(rttMs * 1e6);
        long bdp = o.rateBps / 8 * rttNs / 1_000_000_000L;
        int size = messageBytes(o.rateBps);
        // a send queue and window for the whole bandwidth-delay product and an RTT of repairs behind it
        int depth = (int) Math.min(1 << 16, (4 * bdp + o.rateBps / 8 / 100) / size + 4);
        int window = (int) Math.min(1 << 22, Math.max(1024, 4 * bdp / MTU + 1024));
        int timeout = LongPath.ackTimeoutFor(rttNs);
        long warm = START + 2 * rttNs + 1_000_000;
        long end = warm + o.simNs;
        try (World w = new World(o.seed, START)) {
            w.describePayloads();
            SwitchConfig sc = new SwitchConfig().bufferBytes(16_000_000);
            sc.port(new PortConfig().rateBps(o.rateBps));
            sc.port(new PortConfig().rateBps(o.rateBps));
            SwitchNode s = w.addSwitch("s1", sc);
            DeviceHost a = w.addDevice(DeviceConfig.named("a", 1).withWindow(window), MTU, 0);
            DeviceHost b = w.addDevice(DeviceConfig.named("b", 2).withWindow(window), MTU, 0);
            ImpairmentConfig drop = lossPercent > 0 ? ImpairmentConfig.none().lossRandom(lossPercent / 100, 0) : null;
            w.connect(a, s, 0, o.rateBps, rttNs / 4, null, null);
            w.connect(b, s, 1, o.rateBps, rttNs / 4, null, drop);
            MessageWorkload m = new MessageWorkload(w, row.name, a, b, MessageWorkload.Op.WRITE, QpType.RC, size, depth,
                    0, end, LossRecovery.named(row.reliability), row.rateControl(o.rateBps), row.wan(),
                    MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_4096).withTimeout(timeout), o.seed);
            w.add(a, m, START);
            long[] at = new long[2];
            long[] placed = new long[2];
            w.at(warm, () -> {
                at[0] = m.succeeded();
                placed[0] = placedBytes(m);
            });
            w.at(end, () -> {
                at[1] = m.succeeded();
                placed[1] = placedBytes(m);
            });
            long wall0 = System.nanoTime();
            w.runUntil(end);
            long wall = System.nanoTime() - wall0;
            SoftQp qp = (SoftQp) m.qp();
            SoftQp peer = (SoftQp) m.peer();
            long errors = m.result().errors();
            boolean verified = at[1] > 0 && m.verify();
            StringBuilder note = new StringBuilder(at[1] == 0 ? "no message completed; " : "");
            if (errors > 0) note.append(errors).append(" completions in error; ");
            // why a cell falls short: the backstop timer fired, or the receiver could not place what came
            long timeouts = qp.counters().get(Counter.ACK_TIMEOUTS);
            long notPlaceable = peer.counters().get(Counter.DROP_NOT_PLACEABLE);
            if (timeouts > 0) note.append(timeouts).append(" ACK timeouts; ");
            if (notPlaceable > 0) note.append(notPlaceable).append(" not placeable; ");
            return new Cell(row.name, qp.stats().policyNames(), rttMs, lossPercent, o.rateBps, placed[1] - placed[0], o.simNs,
                    qp.stats().get(Counter.RETRANSMITTED_PKTS), fecRepaired(peer), verified, w.impairmentLost(), wall,
                    note.isEmpty() ? "" : note.substring(0, note.length() - 2));
        }
    }

    /** Payload bytes the receiver placed so far, each once (out-of-order ones too; no duplicates, no parity). */
    private static long placedBytes(MessageWorkload m) {
        return m.peer() == null ? 0 : ((SoftQp) m.peer()).counters().get(Counter.PLACED_BYTES);
    }

    /**
     * Packets the receiver rebuilt from FEC parity: the counter the FEC engine adds (named for FEC and repair), or -1
     * while the engine has none.
     */
    static long fecRepaired(SoftQp receiver) {
        long n = -1;
        for (Counter c : Counter.values()) {
            String k = c.name().toLowerCase(Locale.ROOT);
            if (k.contains("fec") && (k.contains("repair") || k.contains("rebuilt") || k.contains("recovered"))) {
                n = Math.max(n, 0) + receiver.counters().get(c);
            }
        }
        return n;
    }
}
