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
 * early and the senders would resume into the headroom.
 *
 * <p>What is asserted holds however the machine schedules the threads. The congestion does not depend on how fast the
 * senders get to send: h3 holds the switch's port to it with 802.3x PAUSE until the switch has paused both senders
 * (or, without PFC, dropped), so the queue builds at any sending rate. And the headroom (3 MB per lossless ingress)
 * covers everything that can be "on the cable" when the switch sends XOFF: the switch port's RX ring (1 MB, ~0.7 MB of
 * frames; frames waiting there are not yet seen by the switch's MMU), the veth's backlog and what a sender puts out
 * before its engine reads the XOFF. A switch thread kept off the CPU longer than its ring lasts loses frames in the
 * kernel's ring, not in its buffer: a host-side overrun, counted apart and repaired by go-back-N, as is an overrun of
 * h3's ring; neither is the switch's buffer and neither is asserted away.
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
        return incast(pfc, buffer, writes, 4096, LINE_RATE);
    }

    /** The switch's RX ring per port: what it holds is under the headroom, with room for the veth backlog beside it. */
    static final int SWITCH_RX_RING = 1 << 20;

    /**
     * As {@link #incast(String, String, int)} with {@code window} packets in flight and {@code rate} per sender. h3
     * pauses its switch port until the switch has paused both senders (with PFC) or dropped (without), then resumes it.
     */
    static Result incast(String pfc, String buffer, int writes, int window, RateControl.Factory rate) throws Exception {
        long bytes = (long) writes * SIZE;
        boolean lossless = !pfc.equals("[]");
        try (UrdmaFabric f = new UrdmaFabric(incast(pfc, buffer), "s1", RtOptions.defaults().rxRingBytes(SWITCH_RX_RING));
             UrdmaHost h1 = new UrdmaHost("h1", f.ns("h1"), H1, "10.9.0.1/24", c -> c.withVlan(1, 3).withLinkRate(1_000_000_000L), bytes, window, rate);
             UrdmaHost h2 = new UrdmaHost("h2", f.ns("h2"), H2, "10.9.0.2/24", c -> c.withVlan(1, 3).withLinkRate(1_000_000_000L), bytes, window, rate);
             UrdmaHost h3 = new UrdmaHost("h3", f.ns("h3"), H3, "10.9.0.3/24", c -> c.withVlan(1, 3).withLinkRate(100_000_000L), 2 * bytes, 512, RateControl.none());
             TestHost pauser = new TestHost("h3-pause", f.ns("h3"), H3)) {
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
            pauser.send(pause(H3, 0xFFFF));
            h1.postWrites(q1, h3.mr, 0, writes, SIZE);
            h2.postWrites(q2, h3.mr, bytes, writes, SIZE);
            long heldMs = holdUntil(f, pauser, lossless ? () -> f.counter("s1 p0 pfc-tx prio 3") > 0 && f.counter("s1 p1 pfc-tx prio 3") > 0
                    : () -> switchDrops(f) > 0);
            h1.awaitCompletions(writes, 25_000);
            h2.awaitCompletions(writes, 25_000);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            f.stopSwitch();
            assertEquals(-1, h1.mr.segment().asSlice(0, bytes).mismatch(h3.mr.segment().asSlice(0, bytes)), "h1's bytes at h3");
            assertEquals(-1, h2.mr.segment().asSlice(0, bytes).mismatch(h3.mr.segment().asSlice(bytes, bytes)), "h2's bytes at h3");
            long ringDrops = 0;
            for (int p = 0; p < 3; p++) ringDrops += ((AfPacketPort) f.sw().port(p).io()).kernelStatistics().drops();
            for (UrdmaHost h : new UrdmaHost[] {h1, h2, h3}) ringDrops += h.link.kernelStatistics().drops();
            Result r = new Result(f.sw().core().counters(0), f.sw().core().counters(1), h1.link.counters(), h2.link.counters(),
                    ((SoftQp) q1).stats().get(Counter.RETRANSMITTED_PKTS) + ((SoftQp) q2).stats().get(Counter.RETRANSMITTED_PKTS), ringDrops,
                    CounterReport.format(f.sw(), "incast") + "\nh1 " + h1.link.counters() + " paused " + pauses(h1.link.counters())
                            + "\nh2 " + h2.link.counters() + " paused " + pauses(h2.link.counters()) + "\nh3 " + h3.link.counters() + ", kernel " + h3.link.kernelStatistics()
                            + "\n" + 2 * bytes + " B in " + ms + " ms, h3's port held for " + heldMs + " ms; " + ringDrops + " frames lost in RX rings, "
                            + (((SoftQp) q1).stats().get(Counter.RETRANSMITTED_PKTS) + ((SoftQp) q2).stats().get(Counter.RETRANSMITTED_PKTS)) + " resent");
            System.out.println(r.report);
            return r;
        }
    }

    /** The senders' frames the switch's buffer refused (lossy: above the dynamic threshold, or full), as published. */
    static long switchDrops(UrdmaFabric f) {
        long n = 0;
        for (int p = 0; p < 2; p++) {
            n += f.counter("s1 p" + p + " drop-shared-threshold") + f.counter("s1 p" + p + " drop-buffer-full");
        }
        return n;
    }

    /**
     * Keeps the switch's port to h3 paused (a PAUSE of 65535 quanta lasts 335 ms at 100 Mbit/s; refreshed every 100 ms)
     * until {@code done}, then resumes it; returns how long it was held.
     */
    static long holdUntil(UrdmaFabric f, TestHost pauser, java.util.function.BooleanSupplier done) throws InterruptedException {
        long start = System.nanoTime(), refreshed = start;
        while (!done.getAsBoolean()) {
            long now = System.nanoTime();
            if (now - start > 20_000_000_000L) {
                pauser.send(pause(H3, 0));
                throw new AssertionError("the incast behind h3's pause never reached the switch's limit in 20 s\n" + CounterReport.format(f.sw(), "incast"));
            }
            if (now - refreshed > 100_000_000L) {
                pauser.send(pause(H3, 0xFFFF));
                refreshed = now;
            }
            Thread.sleep(5);
        }
        pauser.send(pause(H3, 0));
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** An 802.3x PAUSE frame from {@code sa}: every priority stops for {@code quanta} x 512 bit times; 0 resumes. */
    static byte[] pause(long sa, int quanta) {
        byte[] f = new byte[60];
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(f);
        TestHost.putMac(b, 0x0180_C200_0001L);
        TestHost.putMac(b, sa);
        b.putShort((short) 0x8808).putShort((short) 0x0001).putShort((short) quanta);
        return f;
    }

    static String pauses(LinkCounters c) {
        return c.pauseFrames(3) + " frames, " + c.pauseTimeNs(3) / 1_000_000 + " ms on priority 3, " + c.txPaused() + " claims held";
    }

    record Result(PortCounters in1, PortCounters in2, LinkCounters h1, LinkCounters h2, long retransmitted, long ringDrops, String report) {
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
            // each XOFF lasts 33 ms and is refreshed while the queue behind h3 cannot drain, and the sender has data
            // left: its engine tries to send while paused, and the link holds the frame back
            assertTrue(c.txPaused() > 0, "sender held its frames back while paused\n" + r.report);
            assertEquals(0, c.pauseFrames(0), "only priority 3 is lossless");
        }
        if (r.ringDrops == 0) assertEquals(0, r.retransmitted, "nothing lost, nothing resent\n" + r.report);
    }

    @Test
    void withoutPfcTheIncastDropsAndGoBackNStillDeliversEveryByte() throws Exception {
        // 1 MiB per sender, all of it in flight, into 256 KB of buffer behind h3's pause: the incast drops. The
        // senders are paced to 39 Mbit/s each, together below the port's 100 Mbit/s, so once h3 resumes the queue
        // drains and each go-back-N round gets through: at line rate the resends of both met a full buffer again,
        // and a resent packet dropped round after round spent its seven retries (retry_cnt, IB spec) on NAKs
        Result r = incast("[]", "256KB", 16, 1024, RateControl.windowLimit(320, 65_536));
        assertTrue(r.drops() > 0, "the switch dropped\n" + r.report);
        assertTrue(r.retransmitted > 0, "go-back-N resent\n" + r.report);
        assertEquals(0, r.h1.pauseFrames() + r.h2.pauseFrames(), "no PFC without a lossless priority");
    }
}
