package org.urdma.nativeio;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.*;

/** The ring data path (acquire, write, commit, flush, poll, receive) allocates nothing once warm. */
@Tag("root")
class DataPathAllocationTest {
    private long frames;

    @Test
    void steadyStateSendAndReceiveDoNotAllocate() throws Exception {
        RootAssumptions.assumeRoot();
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Topology t = Topology.create()) {
            String a = t.namespace("a");
            String b = t.namespace("b");
            t.veth(a, "e0", b, "e0", Topology.LinkOptions.defaults());
            try (AfPacketSocket rx = Netns.call(b, () -> AfPacketSocket.open("e0", AfPacketOptions.defaults()
                         .protocol(TestFrames.ETHERTYPE).noTxRing()));
                 AfPacketSocket tx = Netns.call(a, () -> AfPacketSocket.open("e0", AfPacketOptions.defaults()
                         .protocol(0).noRxRing()))) {
                byte[] dst = {-1, -1, -1, -1, -1, -1};
                byte[] src = {2, 0, 0, 0, 0, 1};
                FrameHandler h = f -> frames++;
                long tid = Thread.currentThread().threadId();
                // the JIT compiles in the background: take the best of several windows as steady state
                long best = Long.MAX_VALUE;
                for (int window = 0; window < 15 && best > 0; window++) {
                    long before = mx.getThreadAllocatedBytes(tid);
                    for (int i = 0; i < 20_000; i++) {
                        roundTrip(tx, rx, h, dst, src, i);
                    }
                    best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
                }
                assertTrue(best < 1024, "allocated " + best + " bytes for 20000 frames in the best window");
                assertTrue(frames > 0);
            }
        }
    }

    private static void roundTrip(AfPacketSocket tx, AfPacketSocket rx, FrameHandler h, byte[] dst, byte[] src, int seq) {
        int slot = tx.txAcquire();
        if (slot >= 0) {
            TestFrames.write(tx.txBuffer(), tx.txDataOffset(slot), dst, src, seq, 64);
            tx.txCommit(slot, 64);
        }
        if ((seq & 7) == 7) {
            tx.flush();
            rx.pollIn(0);
        }
        rx.receive(h);
    }
}
