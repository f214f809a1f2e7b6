package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/** WAN-mode READ responses into A's completer, hand-made, in any order. */
class WanReadsTest {
    static final long MS = ResponderHarness.MS;
    static final int FLAGS = OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;
    static final long REMOTE = InOrderReadsTest.REMOTE;

    @Test
    void responsesInAnyOrderArePlacedByTheirRethAndCompleteTheReadOnceAllCame() {
        try (RequesterHarness h = new RequesterHarness(FLAGS)) {
            int mtu = h.qa.mtu;
            MemoryRegion local = h.rig.mrA(3 * mtu, AccessFlags.LOCAL_WRITE);
            int p0 = InOrderReadsTest.postRead(h, local, 3 * mtu);
            h.deliver(response(h, Opcode.RC_RDMA_READ_RESPONSE_LAST, p0, 2, mtu, 3));
            assertEquals(3, local.segment().get(ValueLayout.JAVA_BYTE, 2L * mtu + 5), "placed on arrival");
            assertEquals(1, h.qa.counters().get(Counter.OUT_OF_ORDER_PLACED));
            h.deliver(response(h, Opcode.RC_RDMA_READ_RESPONSE_FIRST, p0, 0, mtu, 1));
            assertTrue(h.rig.pendingA().isEmpty(), "one response still missing");
            h.deliver(response(h, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, p0, 1, mtu, 2));
            List<WorkCompletion> wcs = h.rig.awaitA(1, MS);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status);
            for (int i = 0; i < 3; i++) assertEquals(i + 1, local.segment().get(ValueLayout.JAVA_BYTE, (long) i * mtu));
            assertEquals(Psn.add(p0, 3), h.qa.completer.compPsn);
        }
    }

    @Test
    void aResponseWhoseRethIsNotItsOwnOffsetIsDropped() {
        try (RequesterHarness h = new RequesterHarness(FLAGS)) {
            int mtu = h.qa.mtu;
            MemoryRegion local = h.rig.mrA(2 * mtu, AccessFlags.LOCAL_WRITE);
            int p0 = InOrderReadsTest.postRead(h, local, 2 * mtu);
            Packet p = response(h, Opcode.RC_RDMA_READ_RESPONSE_FIRST, p0, 0, mtu, 1);
            p.rethVa += 8;
            h.deliver(p);
            assertEquals(1, h.qa.counters().get(Counter.DROP_BAD_OPCODE));
            assertEquals(0, local.segment().get(ValueLayout.JAVA_BYTE, 8), "nothing placed");
        }
    }

    @Test
    void atAnAckTimeoutEveryResponseStillMissingIsAskedForAgainOnItsOwn() {
        try (RequesterHarness h = new RequesterHarness(FLAGS)) {
            int mtu = h.qa.mtu;
            MemoryRegion local = h.rig.mrA(3 * mtu, AccessFlags.LOCAL_WRITE);
            int p0 = InOrderReadsTest.postRead(h, local, 3 * mtu);
            h.deliver(response(h, Opcode.RC_RDMA_READ_RESPONSE_FIRST, p0, 0, mtu, 1));
            h.sent.clear();
            h.rig.run(2 * h.qa.ackTimeoutNanos);
            assertTrue(h.qa.stats().get(Counter.ACK_TIMEOUTS) >= 1, "the ACK timer fired");
            Set<Integer> asked = new HashSet<>();
            for (Packet r : h.sentOf(Opcode.RC_RDMA_READ_REQUEST)) {
                asked.add(r.psn);
                if (r.psn != p0) assertEquals(mtu, r.rethDmaLength, "one response per request");
            }
            assertTrue(asked.contains(Psn.add(p0, 1)) && asked.contains(Psn.add(p0, 2)), "asked again: " + asked);
        }
    }

    /** READ response {@code k} of the READ at {@code p0}: its own RETH, one MTU of {@code fill}. */
    private static Packet response(RequesterHarness h, int opcode, int p0, int k, int mtu, int fill) {
        Packet p = h.response(opcode, Psn.add(p0, k));
        p.rethVa = REMOTE + (long) k * mtu;
        p.rethDmaLength = 3 * mtu;
        return p.payload(RequesterHarness.bytes(mtu, fill), 0, mtu);
    }
}
