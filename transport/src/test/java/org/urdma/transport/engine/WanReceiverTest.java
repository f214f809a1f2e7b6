package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpState;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/** The WAN RC receiver: hand-made requests placed in any order, completed in PSN order, gaps reported in SACKs. */
class WanReceiverTest {
    static final long MS = ResponderHarness.MS;
    static final int FLAGS = OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;

    @Test
    void aWritesLastPacketIsPlacedBeforeItsFirstAndTheSackListsTheGap() {
        try (ResponderHarness h = ResponderHarness.wan(FLAGS)) {
            int mtu = h.qb.mtu;
            MemoryRegion mr = h.rig.mrB(4 * mtu, AccessFlags.ALL);
            int e = h.psn(0);
            Packet last = h.write(Opcode.RDMA_WRITE_LAST, h.psn(1), mr, mtu, 2 * mtu, ResponderHarness.bytes(100, 2));
            last.ackReq = true;
            h.deliver(last);
            assertEquals(2, mr.segment().get(ValueLayout.JAVA_BYTE, mtu + 99), "placed on arrival, past the gap");
            assertEquals(1, h.qb.counters().get(Counter.OUT_OF_ORDER_PLACED));
            assertEquals(e, h.qb.responder.ePsn, "the in-order point waits at the gap");
            List<Packet> acks = h.acks(Aeth.SYNDROME_ACK);
            assertFalse(acks.isEmpty(), "the AckReq made an ACK");
            Packet sack = acks.get(acks.size() - 1);
            assertEquals(1, sack.sackCount, "one missing range");
            assertEquals(e, sack.sackCumulativePsn);
            assertEquals(e, sack.sackRangeStart[0]);
            assertEquals(1, sack.sackRangeLength[0]);

            h.deliver(h.write(Opcode.RDMA_WRITE_FIRST, e, mr, 0, 2 * mtu, ResponderHarness.bytes(mtu, 1)));
            assertEquals(1, mr.segment().get(ValueLayout.JAVA_BYTE, 0));
            assertEquals((e + 2) & 0xFFFFFF, h.qb.responder.ePsn, "the in-order point passed both packets");
            assertEquals(QpState.RTS, h.b.state());
        }
    }

    @Test
    void sendsPlacedOutOfOrderCompleteInOrderIntoTheReceivesTheirSequenceNumbersName() {
        try (ResponderHarness h = ResponderHarness.wan(FLAGS)) {
            MemoryRegion mr = h.rig.mrB(8192, AccessFlags.ALL);
            h.postRecv(1, mr, 0, 4096);
            h.postRecv(2, mr, 4096, 4096);
            int e = h.psn(0);
            h.deliver(send(h, h.psn(1), 1, 20, 0xB));
            assertEquals(0xB, mr.segment().get(ValueLayout.JAVA_BYTE, 4096 + 19), "the second SEND is in the second receive");
            assertTrue(h.rig.pendingB().isEmpty(), "nothing completes ahead of the first message");
            h.deliver(send(h, e, 0, 10, 0xA));
            List<WorkCompletion> wcs = h.rig.awaitB(2, 10 * MS);
            assertEquals(1, wcs.get(0).wrId);
            assertEquals(10, wcs.get(0).byteLen);
            assertEquals(2, wcs.get(1).wrId);
            assertEquals(20, wcs.get(1).byteLen);
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status);
            assertEquals(0xA, mr.segment().get(ValueLayout.JAVA_BYTE, 9));
        }
    }

    @Test
    void aReadPastAGapIsNotExecutedButListedInTheSack() {
        try (ResponderHarness h = ResponderHarness.wan(FLAGS)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            int e = h.psn(0);
            Packet read = h.request(Opcode.RDMA_READ_REQUEST, h.psn(1));
            read.rethVa = mr.address();
            read.rethRkey = mr.rkey();
            read.rethDmaLength = 64;
            read.ackReq = true;
            h.deliver(read);
            assertTrue(h.sentOf(Opcode.RC_RDMA_READ_RESPONSE_ONLY).isEmpty(), "a READ acts only in PSN order");
            assertEquals(1, h.qb.counters().get(Counter.DROP_NOT_PLACEABLE));
            assertEquals(e, h.qb.responder.ePsn);
            h.rig.run(10 * MS); // the SACK timer reports the gap the READ left
            List<Packet> acks = h.acks(Aeth.SYNDROME_ACK);
            assertFalse(acks.isEmpty(), "the SACK timer sent an ACK");
            Packet sack = acks.get(acks.size() - 1);
            assertEquals(1, sack.sackCount);
            assertEquals(e, sack.sackRangeStart[0]);
            assertEquals(2, sack.sackRangeLength[0], "the gap and the READ not executed");
        }
    }

    @Test
    void aPacketBeyondTheWindowIsDroppedAsNotPlaceable() {
        try (ResponderHarness h = ResponderHarness.wan(FLAGS)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            int far = h.psn(PsnWindow.sizeFor(h.qb.device.config().window()));
            h.deliver(h.write(Opcode.RDMA_WRITE_ONLY, far, mr, 0, 8, ResponderHarness.bytes(8, 5)));
            assertEquals(0, mr.segment().get(ValueLayout.JAVA_BYTE, 0), "not placed");
            assertEquals(1, h.qb.counters().get(Counter.DROP_NOT_PLACEABLE));
        }
    }

    /** A SEND_ONLY of {@code len} bytes with WAN's RETH: offset 0, receive sequence number {@code ssn}, message length. */
    private static Packet send(ResponderHarness h, int psn, int ssn, int len, int fill) {
        Packet p = h.request(Opcode.SEND_ONLY, psn);
        p.rethVa = 0;
        p.rethRkey = ssn;
        p.rethDmaLength = len;
        p.ackReq = true;
        p.payload(ResponderHarness.bytes(len, fill), 0, len);
        return p;
    }
}
