package org.urdma.switchemu.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.link.ethernet.LinkCounters;
import org.urdma.transport.rate.RateControl;
import org.urdma.verbs.QueuePair;

/**
 * Two urdma RC WRITE senders, each with up to 4096 packets (4 MiB) in flight, (h1, h2, 1 Gbit/s links) into one 100 Mbit/s port (h3) through the real-time switch,
 * on priority 3. With PFC on priority 3 the switch pauses the senders' links and the urdma hosts honour it: no switch
 * drop, every byte lands, the senders count pause frames and paused time. Without PFC the same incast overflows the
 * switch buffer and go-back-N repairs it. The senders time quanta at their topology rate (1 Gbit/s, as the switch
 * does), not the 10 Gbit/s default of an interface without a speed: else each 65535-quanta XOFF would end ten times
 * early and the senders would resume into the headroom. The headroom (3 MB per lossless ingress) covers 30 ms of a
 * sender at its 800 Mbit/s limit, because frames the busy switch thread has not read yet are still "on the cable" (see IncastPfcRtTest).
 */
@Tag("root")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UrdmaPfcRtTest {
    static final long H1 = 0x02_00_00_00_00_01L;
    static final long H2 = 0x02_00_00_00_00_02L;
    static final long H3 = 0x02_00_00_00_00_03L;
    static final int SIZE = 64 * 1024;
    /**
     * An AF_PACKET link has no serializer: a sender would put its whole window on the veth in a few ms, all of it
     * "on the wire" before any XOFF could reach it. PAXI's window limit at 4 KiB per 40.96 us (800 Mbit/s of payload)
     * stands in for the 1 Gbit/s NIC, so what is in flight when the switch pauses is what the headroom is sized for.
     */
    static final RateControl.Factory LINE_RATE = RateControl.windowLimit(4096, 40_960);

    /** {@code buffer}: 10MB with PFC (3 x 3 MB headroom, ~1 MB shared), 256KB without (no headroom; a smaller incast). */
    static String incast(String pfc, String buffer) {
        return """
            hosts:
              - {name: h1, mac: "02:00:00:00:00:01", ip: 10.9.0.1/24}
              - {name: h2, mac: "02:00:00:00:00:02", ip: 10.9.0.2/24}
              - {name: h3, mac: "02:00:00:00:00:03", ip: 10.9.0.3/24}
            switches:
              - name: s1
                buffer: %s
                reserve: 1500
                alpha: 1
                headroom: 3MB
                classify: pcp
                pfc: %s
            links:
              - {endpoints: [h1, s1], rate: 1G}
              - {endpoints: [h2, s1], rate: 1G}
              - {endpoints: [s1, h3], rate: 100M}
            """.formatted(buffer, pfc);
    }

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    /** Runs the incast of {@code writes} x 64 KiB per sender; returns the switch's ingress counters of h1 and h2. */
    static Result incast(String pfc, String buffer, int writes) throws Exception {
        return incast(pfc, buffer, writes, 4096);
    }

    /** As {@link #incast(String, String, int)} with {@code window} packets in flight per sender. */
    static Result incast(String pfc, String buffer, int writes, int window) throws Exception {
        long bytes = (long) writes * SIZE;
        try (UrdmaFabric f = new UrdmaFabric(incast(pfc, buffer), "s1");
             UrdmaHost h1 = new UrdmaHost("h1", f.ns("h1"), H1, "10.9.0.1/24", c -> c.withVlan(1, 3).withLinkRate(1_000_000_000L), bytes, window, LINE_RATE);
             UrdmaHost h2 = new UrdmaHost("h2", f.ns("h2"), H2, "10.9.0.2/24", c -> c.withVlan(1, 3).withLinkRate(1_000_000_000L), bytes, window, LINE_RATE);
             UrdmaHost h3 = new UrdmaHost("h3", f.ns("h3"), H3, "10.9.0.3/24", c -> c.withVlan(1, 3).withLinkRate(100_000_000L), 2 * bytes, 512, RateControl.none())) {
            QueuePair q1 = h1.rcQp(), q2 = h2.rcQp(), q31 = h3.rcQp(), q32 = h3.rcQp();
            // local ACK timeout 18 (1.07 s): a message may wait behind the whole lossless queue (shared part and both
            // headrooms, ~7 MB drained at 100 Mbit/s: 0.56 s), far more than timeout 14's 67 ms; a lossless fabric is
            // tuned so that a pause is not taken for a loss
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withRetryCnt(7).withTimeout(18);
            UrdmaHost.connect(h1, q1, h3, q31, c);
            UrdmaHost.connect(h2, q2, h3, q32, c);
            UrdmaHost.fill(h1.mr.segment(), 0, bytes, 1);
            UrdmaHost.fill(h2.mr.segment(), 0, bytes, 2);
            long t0 = System.nanoTime();
            h1.postWrites(q1, h3.mr, 0, writes, SIZE);
            h2.postWrites(q2, h3.mr, bytes, writes, SIZE);
            h1.awaitCompletions(writes, 25_000);
            h2.awaitCompletions(writes, 25_000);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            f.stopSwitch();
            assertEquals(-1, h1.mr.segment().asSlice(0, bytes).mismatch(h3.mr.segment().asSlice(0, bytes)), "h1's bytes at h3");
            assertEquals(-1, h2.mr.segment().asSlice(0, bytes).mismatch(h3.mr.segment().asSlice(bytes, bytes)), "h2's bytes at h3");
            Result r = new Result(f.sw().core().counters(0), f.sw().core().counters(1), h1.link.counters(), h2.link.counters(),
                    ((SoftQp) q1).stats().get(Counter.RETRANSMITTED_PKTS) + ((SoftQp) q2).stats().get(Counter.RETRANSMITTED_PKTS),
                    CounterReport.format(f.sw(), "incast") + "\nh1 " + h1.link.counters() + " paused " + pauses(h1.link.counters())
                            + "\nh2 " + h2.link.counters() + " paused " + pauses(h2.link.counters()) + "\nh3 " + h3.link.counters() + ", kernel " + h3.link.kernelStatistics() + "\n" + 2 * bytes + " B in " + ms + " ms");
            System.out.println(r.report);
            return r;
        }
    }

    static String pauses(LinkCounters c) {
        return c.pauseFrames(3) + " frames, " + c.pauseTimeNs(3) / 1_000_000 + " ms on priority 3, " + c.txPaused() + " claims held";
    }

    record Result(PortCounters in1, PortCounters in2, LinkCounters h1, LinkCounters h2, long retransmitted, String report) {
        long drops() {
            return in1.totalDrops() + in2.totalDrops();
        }
    }

    @Test
    void withPfcTheUrdmaSendersPauseAndTheSwitchDropsNothing() throws Exception {
        Result r = incast("[3]", "10MB", 96); // 2 x 6 MiB: more than the ~0.5 MB shared plus 3 MB headroom each sender may fill
        assertEquals(0, r.drops(), r.report);
        assertTrue(r.in1.pfcTx[3] > 0 && r.in2.pfcTx[3] > 0, "the switch paused both senders\n" + r.report);
        for (LinkCounters c : new LinkCounters[] {r.h1, r.h2}) {
            assertTrue(c.pauseFrames(3) > 0, "sender counted PFC frames\n" + r.report);
            assertTrue(c.pauseTimeNs(3) > 0, "sender was paused\n" + r.report);
            assertEquals(0, c.pauseFrames(0), "only priority 3 is lossless");
        }
        assertEquals(0, r.retransmitted, "nothing lost, nothing resent\n" + r.report);
    }

    @Test
    void withoutPfcTheIncastDropsAndGoBackNStillDeliversEveryByte() throws Exception {
        // 1 MiB per sender, all of it in flight, into 256 KB of buffer: the incast drops (180-2500 frames in 8 runs),
        // and the senders are done before go-back-N could spend its retries. With 4096 packets in flight and 2 MiB
        // each against 1 MB, the buffer stayed full at 16 x the port's rate: a resent packet was dropped again round
        // after round, and h2 spent its seven retries (retry_cnt, IB spec) on NAKs in 4 of 5 runs of this class
        Result r = incast("[]", "256KB", 16, 1024);
        assertTrue(r.drops() > 0, "the switch dropped\n" + r.report);
        assertTrue(r.retransmitted > 0, "go-back-N resent\n" + r.report);
        assertEquals(0, r.h1.pauseFrames() + r.h2.pauseFrames(), "no PFC without a lossless priority");
    }
}
