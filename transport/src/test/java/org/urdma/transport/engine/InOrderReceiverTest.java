package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/** The DC RC receiver's check chain, one hand-made request at a time. */
class InOrderReceiverTest {
    static final long MS = ResponderHarness.MS;

    @Test
    void aGapIsNakedOnceAndARoundGoingBackToItIsNakedAgain() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            int e = h.psn(0);
            h.deliver(h.write(Opcode.RDMA_WRITE_ONLY, h.psn(1), mr, 0, 8, ResponderHarness.bytes(8, 1)));
            h.deliver(h.write(Opcode.RDMA_WRITE_ONLY, h.psn(2), mr, 0, 8, ResponderHarness.bytes(8, 1)));
            List<Packet> naks = h.acks(Aeth.SYNDROME_NAK);
            assertEquals(1, naks.size(), "one NAK for the gap, not one per packet past it");
            assertEquals(e, naks.get(0).psn, "the NAK names the missing PSN");
            assertEquals(Aeth.NAK_PSN_SEQUENCE_ERROR, naks.get(0).aethSyndrome & 0x1F);
            // the requester went back and its resend at the gap was lost: the next packet is before the last one seen
            h.deliver(h.write(Opcode.RDMA_WRITE_ONLY, h.psn(1), mr, 0, 8, ResponderHarness.bytes(8, 1)));
            assertEquals(2, h.acks(Aeth.SYNDROME_NAK).size(), "a new round at the gap is NAKed again");
            assertEquals(2, h.qb.counters().get(Counter.OUT_OF_SEQ_REQUEST));
            assertEquals(e, h.qb.responder.ePsn, "nothing past the gap was taken");
            assertEquals(0, mr.segment().get(ValueLayout.JAVA_BYTE, 0), "nothing past the gap was placed");
            assertEquals(QpState.RTS, h.b.state());
        }
    }

    @Test
    void aMiddlePacketWithNoMessageStartedFailsCheckOpSeqWithAnInvalidRequestNak() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            MemoryRegion mr = h.rig.mrB(8192, AccessFlags.ALL);
            h.deliver(h.write(Opcode.RDMA_WRITE_MIDDLE, h.psn(0), mr, 0, 0, ResponderHarness.bytes(h.qb.mtu, 1)));
            List<Packet> naks = h.acks(Aeth.SYNDROME_NAK);
            assertEquals(1, naks.size());
            assertEquals(Aeth.NAK_INVALID_REQUEST, naks.get(0).aethSyndrome & 0x1F);
            assertEquals(QpState.ERR, h.b.state(), "a class C error moves the QP to ERR");
        }
    }

    @Test
    void aFirstPacketShorterThanTheMtuFailsCheckLength() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            MemoryRegion mr = h.rig.mrB(8192, AccessFlags.ALL);
            h.deliver(h.write(Opcode.RDMA_WRITE_FIRST, h.psn(0), mr, 0, 4096, ResponderHarness.bytes(100, 1)));
            assertEquals(Aeth.NAK_INVALID_REQUEST, h.acks(Aeth.SYNDROME_NAK).get(0).aethSyndrome & 0x1F);
            assertEquals(0, mr.segment().get(ValueLayout.JAVA_BYTE, 0), "nothing placed");
            assertEquals(QpState.ERR, h.b.state());
        }
    }

    @Test
    void aWriteThroughAnUnknownRkeyFailsCheckRkeyAndTouchesNothing() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            Packet p = h.write(Opcode.RDMA_WRITE_ONLY, h.psn(0), mr, 0, 8, ResponderHarness.bytes(8, 1));
            p.rethRkey ^= 0x5A5A;
            h.deliver(p);
            assertEquals(Aeth.NAK_REMOTE_ACCESS_ERROR, h.acks(Aeth.SYNDROME_NAK).get(0).aethSyndrome & 0x1F);
            assertEquals(0, mr.segment().get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(QpState.ERR, h.b.state());
        }
    }

    @Test
    void aSendWithNoReceivePostedIsRnrNakedAndTakesNoPsnUntilOneIs() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            int e = h.psn(0);
            Packet send = h.request(Opcode.SEND_ONLY, e);
            send.ackReq = true;
            send.payload(ResponderHarness.bytes(16, 7), 0, 16);
            h.deliver(send);
            assertEquals(1, h.acks(Aeth.SYNDROME_RNR_NAK).size(), "RNR NAK: no receive posted");
            assertEquals(e, h.qb.responder.ePsn);
            h.postRecv(9, mr, 0, 4096);
            h.deliver(send);
            List<WorkCompletion> wcs = h.rig.awaitB(1, 10 * MS);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status);
            assertEquals(9, wcs.get(0).wrId);
            assertEquals(16, wcs.get(0).byteLen);
            assertEquals(7, mr.segment().get(ValueLayout.JAVA_BYTE, 15));
            List<Packet> acks = h.acks(Aeth.SYNDROME_ACK);
            assertEquals(1, acks.size(), "the AckReq made one coalesced ACK");
            assertEquals(e, acks.get(0).psn);
            assertEquals(1, acks.get(0).aethMsn, "the MSN counts the completed message");
        }
    }

    @Test
    void aDuplicateWriteIsAcknowledgedAgainAndNotPlacedTwice() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            int e = h.psn(0);
            Packet w = h.write(Opcode.RDMA_WRITE_ONLY, e, mr, 0, 8, ResponderHarness.bytes(8, 3));
            w.ackReq = true;
            h.deliver(w);
            mr.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
            h.deliver(w);
            assertEquals(0, mr.segment().get(ValueLayout.JAVA_BYTE, 0), "a duplicate is not placed again");
            assertEquals(1, h.qb.counters().get(Counter.DUPLICATE_REQUEST));
            List<Packet> acks = h.acks(Aeth.SYNDROME_ACK);
            assertEquals(2, acks.size(), "the duplicate is answered with an ACK of what was taken");
            assertEquals(e, acks.get(1).psn);
        }
    }
}
