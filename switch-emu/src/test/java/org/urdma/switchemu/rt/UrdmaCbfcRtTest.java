package org.urdma.switchemu.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.LinuxConstants;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.link.ethernet.AfPacketLink;
import org.urdma.transport.link.ethernet.FlowControl;
import org.urdma.transport.link.ethernet.LinkCounters;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QueuePair;

/**
 * PAXI CBFC end to end through the real-time switch with PFC off: an unpaced PAXI Standard sender (h1) writes into a
 * receiver (h2) whose RX ring holds 16 frames and whose engine sleeps 200 us after every pass, so it frees slots (and
 * returns credits) far slower than h1 could send. With 8 frames of credit on VC 3, nothing is lost: no kernel drop in
 * h2's ring, no switch drop, nothing resent; both ends count the same credits consumed and granted. The credit
 * frames (RH opcode 0xC0) cross the switch as ordinary unicast.
 */
@Tag("root")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UrdmaCbfcRtTest {
    static final long H1 = 0x02_00_00_00_00_01L;
    static final long H2 = 0x02_00_00_00_00_02L;
    static final int CREDITS = 8;
    static final int SIZE = 64 * 1024;
    static final int WRITES = 32;
    static final String TOPOLOGY = """
        hosts:
          - {name: h1, mac: "02:00:00:00:00:01", ip: 10.9.0.1/24}
          - {name: h2, mac: "02:00:00:00:00:02", ip: 10.9.0.2/24}
        switches:
          - {name: s1, buffer: 1MB, classify: pcp, pfc: []}
        links:
          - {endpoints: [h1, s1], rate: 1G}
          - {endpoints: [s1, h2], rate: 1G}
        """;

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    /** A slow engine: one pass, then 200 us asleep, whether the pass did work or not. */
    static IdleStrategy sleepy() {
        return new IdleStrategy() {
            @Override
            public void idle(int workCount) {
                idle();
            }

            @Override
            public void idle() {
                LockSupport.parkNanos(200_000);
            }

            @Override
            public void reset() {
            }
        };
    }

    @Test
    void aSenderFasterThanTheCreditReturnLosesNothingAndBothEndsCountTheSameCredits() throws Exception {
        long bytes = (long) WRITES * SIZE;
        // 8 blocks of 4 KiB, two 2 KiB frame slots each: 16 frames
        AfPacketOptions small = AfPacketOptions.forMtu(1500).protocol(LinuxConstants.ETH_P_ALL).version(AfPacketOptions.Version.V2)
                .rxRing(4096, 8, 2048, 1).txSlots(AfPacketLink.TX_SLOTS).sendBuffer(4 << 20);
        try (UrdmaFabric f = new UrdmaFabric(TOPOLOGY, "s1");
             UrdmaHost h1 = new UrdmaHost("h1", f.ns("h1"), H1, "10.9.0.1/24", FramingKind.PAXI_STANDARD,
                     c -> c.withVlan(1, 3).withFlowControl(FlowControl.CBFC, CREDITS), bytes, null, 4096, RateControl.none(), null);
             UrdmaHost h2 = new UrdmaHost("h2", f.ns("h2"), H2, "10.9.0.2/24", FramingKind.PAXI_STANDARD,
                     c -> c.withVlan(1, 3).withFlowControl(FlowControl.CBFC, CREDITS), bytes, small, 512, RateControl.none(), sleepy())) {
            assertEquals(16, small.rxRingFrames());
            QueuePair q1 = h1.rcQp(), q2 = h2.rcQp();
            UrdmaHost.connect(h1, q1, h2, q2, MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024).withRetryCnt(7));
            UrdmaHost.fill(h1.mr.segment(), 0, bytes, 7);
            long t0 = System.nanoTime();
            h1.postWrites(q1, h2.mr, 0, WRITES, SIZE);
            h1.awaitCompletions(WRITES, 30_000);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(-1, h1.mr.segment().asSlice(0, bytes).mismatch(h2.mr.segment().asSlice(0, bytes)), "h1's bytes at h2");
            LinkCounters s = h1.link.counters(), r = h2.link.counters();
            // the last credit frames may still be on their way: wait for both ends to agree (or report)
            long end = System.nanoTime() + 2_000_000_000L;
            while (System.nanoTime() < end && (s.cbfcReceived(3) != r.cbfcGranted(3) || r.cbfcFramesTaken(3) != s.cbfcConsumed(3))) {
                Thread.sleep(5);
            }
            f.stopSwitch();
            String report = CounterReport.format(f.sw(), "cbfc") + "\nh1 " + s + "\n  cbfc consumed " + s.cbfcConsumed(3) + ", received "
                    + s.cbfcReceived(3) + ", held " + s.txPaused() + " claims, credit frames in " + s.cbfcFramesRcvd() + "\nh2 " + r
                    + ", kernel " + h2.link.kernelStatistics() + "\n  cbfc taken " + r.cbfcFramesTaken(3) + ", granted "
                    + r.cbfcGranted(3) + ", credit frames out " + r.cbfcFramesSent() + "\n" + bytes + " B in " + ms + " ms";
            System.out.println(report);
            int packets = (int) (bytes / 1024);
            SoftQp sender = (SoftQp) q1;
            // nothing lost (the drop counts below): a resend may only come from the ACK timer, when a busy machine
            // deschedules an engine thread for longer than the timeout, never from a sequence NAK
            assertTrue(sender.stats().get(Counter.RETRANSMITTED_PKTS) == 0 || sender.stats().get(Counter.ACK_TIMEOUTS) > 0, "nothing resent but by the timer\n" + report);
            assertEquals(0, h2.link.kernelStatistics().drops(), "h2's 16-frame ring never overflowed\n" + report);
            PortCounters in = f.sw().core().counters(0);
            assertEquals(0, in.totalDrops() + f.sw().core().counters(1).totalDrops(), report);
            assertEquals(packets + sender.stats().get(Counter.RETRANSMITTED_PKTS), s.cbfcConsumed(3), "one credit per data frame sent\n" + report);
            assertEquals(s.cbfcConsumed(3), r.cbfcFramesTaken(3), "consumed at h1 = taken at h2\n" + report);
            assertEquals(r.cbfcGranted(3), s.cbfcReceived(3), "granted by h2 = received by h1\n" + report);
            assertTrue(r.cbfcGranted(3) >= packets - CREDITS, "h2 returned the credits\n" + report);
            assertTrue(s.txPaused() > 0, "h1 ran out of credit: it was faster than the return\n" + report);
            assertEquals(0, s.pauseFrames() + r.pauseFrames(), "no PFC on a CBFC link");
        }
    }
}
