package org.urdma.scenario.world;

import java.util.Locale;
import org.urdma.switchemu.core.ClassifyMode;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.switchemu.core.WatchdogAction;
import org.urdma.switchemu.world.DeviceHost;
import org.urdma.switchemu.world.MessageWorkload;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.QpType;

/**
 * PFC deadlock with real queue pairs: three switches in a ring, one urdma host on each, every host writing to the
 * host two hops clockwise, all on one lossless priority. Every ring link carries two flows, a cyclic buffer
 * dependency: the ring's queues pause each other and nothing moves. Without the PFC watchdog it stays so; with it
 * (SONiC semantics, action drop) the stalled queues are dropped after the detection time, RC retransmits what was
 * dropped, and the QPs complete messages again. Reports when the ring stopped, when the watchdog fired, and when
 * every QP completed a message again.
 */
public final class Deadlock {
    /** Link rate, message size and count per host, detection and restoration time of the watchdog, simulated time, seed. */
    public record Options(long rateBps, int messageBytes, int messages, long detectionNs, long restorationNs,
                          long durationNs, long seed) {
        public Options {
            if (rateBps <= 0) throw new IllegalArgumentException("rate: must be > 0");
            if (messageBytes < 1) throw new IllegalArgumentException("size: must be >= 1 byte");
            if (messages < 1) throw new IllegalArgumentException("messages: must be >= 1");
            if (detectionNs <= 0 || restorationNs <= 0) throw new IllegalArgumentException("watchdog: times must be > 0");
            if (durationNs <= 0) throw new IllegalArgumentException("duration: must be > 0");
        }

        public static Options defaults() {
            return new Options(10_000_000_000L, 64 * 1024, 16, 1_000_000, 2_000_000, 100_000_000, 1);
        }

        /**
         * The CI form. Long enough for every message: with all three hosts at line rate and ACKs as prompt as a NIC's,
         * the ring deadlocks again after each recovery (the defaults finish at ~88 ms).
         */
        public static Options quick() {
            return new Options(10_000_000_000L, 64 * 1024, 16, 1_000_000, 2_000_000, 150_000_000, 1);
        }
    }

    static final int PRIO = 3;
    private static final int HOST = 0;
    private static final int CW_OUT = 1;
    private static final int CCW_IN = 2;
    private static final long START = 1_000_000;
    private static final long SAMPLE_NS = 20_000;

    /**
     * What one run saw; times are from the start, -1 when it did not happen: when the ring stopped moving, when the
     * watchdog first fired, when every QP had completed a message after that, when all messages were done.
     */
    public record Outcome(boolean watchdog, long stalledAtNs, long watchdogAtNs, long progressAgainAtNs,
                          long allDoneAtNs, long messages, long errors, long watchdogDrops) {
        public long recoveryNs() {
            return stalledAtNs < 0 || progressAgainAtNs < 0 ? -1 : progressAgainAtNs - stalledAtNs;
        }
    }

    private Deadlock() {
    }

    public static ResultTable run(Options o) {
        ResultTable t = new ResultTable(String.format(Locale.ROOT,
                "deadlock: 3-switch ring, PFC on priority %d, RC WRITEs two hops clockwise at %.0f Gbit/s, %.0f ms",
                PRIO, o.rateBps / 1e9, o.durationNs / 1e6),
                "watchdog", "stalled_at_ms", "watchdog_at_ms", "progress_again_at_ms", "recovery_ms", "all_done_at_ms",
                "messages", "errors", "watchdog_drops");
        for (boolean watchdog : new boolean[] {false, true}) {
            Outcome r = outcome(o, watchdog);
            t.row(watchdog ? "drop" : "off", ms(r.stalledAtNs), ms(r.watchdogAtNs), ms(r.progressAgainAtNs),
                    ms(r.recoveryNs()), ms(r.allDoneAtNs), r.messages + "/" + 3 * o.messages, r.errors,
                    r.watchdogDrops);
        }
        return t.note("recovery: from the last frame that moved on the ring to every QP completing a message again");
    }

    private static String ms(long ns) {
        return ns < 0 ? "-" : String.format(Locale.ROOT, "%.3f", ns / 1e6);
    }

    public static Outcome outcome(Options o, boolean watchdog) {
        try (World w = new World(o.seed, START)) {
            SwitchNode[] s = new SwitchNode[3];
            DeviceHost[] h = new DeviceHost[3];
            for (int i = 0; i < 3; i++) {
                SwitchConfig c = new SwitchConfig().bufferBytes(300_000).reserveBytes(1_500).dtAlpha(1)
                        .resumeOffsetBytes(3_000);
                for (int p = 0; p < 3; p++) {
                    c.port(new PortConfig().mac(0x02_00_00_00_A0_00L + 16 * i + p).rateBps(o.rateBps)
                            .classify(ClassifyMode.DEFAULT).defaultPriority(PRIO).pfcMask(1 << PRIO).headroomBytes(20_000));
                }
                if (watchdog) c.watchdog(o.detectionNs, o.restorationNs, WatchdogAction.DROP);
                s[i] = w.addSwitch("s" + i, c);
                h[i] = w.addDevice(DeviceConfig.named("h" + i, 0x10 + i), 1024, PRIO);
                w.connect(h[i], s[i], HOST, o.rateBps, 1_000, null, null);
            }
            for (int i = 0; i < 3; i++) {
                int next = (i + 1) % 3;
                w.connect(s[i], CW_OUT, s[next], CCW_IN, o.rateBps, 1_000, null, null);
                SwitchCore core = s[i].core();
                core.addStaticMac(h[next].mac(), CW_OUT);
                core.addStaticMac(h[(i + 2) % 3].mac(), CW_OUT);
            }
            MessageWorkload[] m = new MessageWorkload[3];
            for (int i = 0; i < 3; i++) {
                m[i] = new MessageWorkload(w, "h" + i + "->h" + (i + 2) % 3, h[i], h[(i + 2) % 3],
                        MessageWorkload.Op.WRITE, QpType.RC, o.messageBytes, 4, o.messages, Long.MAX_VALUE,
                        LossRecovery.goBackN(), RateControl.none(), MemoryFabric.Connection.defaults().withTimeout(8)
                                .withRetryCnt(7), o.seed + i);
                w.add(h[i], m[i], START);
            }
            long lastTx = -1;
            long lastMove = -1;
            long stalled = -1;
            long fired = -1;
            long again = -1;
            long[] atFire = new long[3];
            long done = -1;
            for (long t = START + SAMPLE_NS; t <= START + o.durationNs; t += SAMPLE_NS) {
                w.runUntil(t);
                long tx = ringTx(s);
                if (tx != lastTx) {
                    lastTx = tx;
                    lastMove = t;
                }
                if (fired < 0 && storms(s) > 0) {
                    fired = t - START;
                    stalled = lastMove - START;
                    for (int i = 0; i < 3; i++) atFire[i] = m[i].result().messages();
                }
                if (fired >= 0 && again < 0) {
                    boolean all = true;
                    for (int i = 0; i < 3; i++) all &= m[i].result().messages() > atFire[i];
                    if (all) again = t - START;
                }
                if (w.finished()) { // all messages done, or QPs in error (retry_cnt exceeded behind the deadlock)
                    if (successes(m) == 3L * o.messages) done = t - START;
                    break;
                }
            }
            long total = successes(m);
            long errors = 0;
            for (MessageWorkload x : m) errors += x.result().errors();
            if (!watchdog && lastMove < START + o.durationNs - 2 * SAMPLE_NS) stalled = lastMove - START;
            long drops = 0;
            for (SwitchNode n : s) {
                for (int p = 0; p < 3; p++) {
                    drops += n.core().counters(p).drops(org.urdma.switchemu.core.DropReason.WATCHDOG);
                }
            }
            return new Outcome(watchdog, stalled, fired, again, done, total, errors, drops);
        }
    }

    private static long successes(MessageWorkload[] m) {
        long n = 0;
        for (MessageWorkload x : m) n += x.result().messages();
        return n;
    }

    private static long ringTx(SwitchNode[] s) {
        long n = 0;
        for (SwitchNode x : s) n += x.core().counters(CW_OUT).txFrames - x.core().counters(CW_OUT).pfcTx[PRIO];
        return n;
    }

    private static long storms(SwitchNode[] s) {
        long n = 0;
        for (SwitchNode x : s) n += x.core().counters(CW_OUT).watchdogStorms[PRIO];
        return n;
    }
}
