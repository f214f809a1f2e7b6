package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/** UC and UD receive, one hand-made packet at a time. */
class UcUdReceiverTest {
    static final long MS = ResponderHarness.MS;

    @Test
    void aUcMessageMissingAPacketIsDroppedSilentlyAndTheNextMessageTakesItsReceive() {
        try (ResponderHarness h = ResponderHarness.of(QpType.UC)) {
            int mtu = h.qb.mtu;
            MemoryRegion mr = h.rig.mrB(8 * mtu, AccessFlags.ALL);
            h.postRecv(1, mr, 0, 4 * mtu);
            h.postRecv(2, mr, 4 * mtu, 4 * mtu);
            int e = h.psn(0);
            h.deliver(payload(h.request(Opcode.SEND_FIRST, e), mtu, 1));
            // e + 1 (the MIDDLE) was lost
            h.deliver(payload(h.request(Opcode.SEND_LAST, (e + 2) & 0xFFFFFF), 10, 1));
            assertTrue(h.rig.pendingB().isEmpty(), "a damaged UC message completes nothing");
            assertEquals(1, h.qb.responder.ucDiscarded());
            h.deliver(payload(h.request(Opcode.SEND_ONLY, (e + 3) & 0xFFFFFF), 33, 4));
            List<WorkCompletion> wcs = h.rig.awaitB(1, 10 * MS);
            assertEquals(1, wcs.get(0).wrId, "the receive the dropped message took serves the next");
            assertEquals(33, wcs.get(0).byteLen);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status);
            assertTrue(h.sent.isEmpty(), "UC answers nothing");
            assertEquals(QpState.RTS, h.b.state());
        }
    }

    @Test
    void aUcWriteWithABadRkeyIsDroppedWithoutErroringTheQp() {
        try (ResponderHarness h = ResponderHarness.of(QpType.UC)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            Packet w = h.write(Opcode.RDMA_WRITE_ONLY, h.psn(0), mr, 0, 8, ResponderHarness.bytes(8, 9));
            w.rethRkey ^= 0x33;
            h.deliver(w);
            assertEquals(0, mr.segment().get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(QpState.RTS, h.b.state(), "UC drops, it does not fail the QP");
            h.deliver(h.write(Opcode.RDMA_WRITE_ONLY, h.psn(0), mr, 0, 8, ResponderHarness.bytes(8, 9)));
            assertEquals(9, mr.segment().get(ValueLayout.JAVA_BYTE, 7), "the next message is placed");
        }
    }

    @Test
    void aUdSendLandsBehindAGrhNamingItsSender() {
        try (ResponderHarness h = ResponderHarness.of(QpType.UD)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            h.postRecv(5, mr, 0, 4096);
            Packet p = payload(h.request(Opcode.SEND_ONLY, 0), 24, 6);
            p.dethQkey = h.qb.qkey;
            p.dethSrcQp = h.a.qpNum();
            h.deliver(p);
            List<WorkCompletion> wcs = h.rig.awaitB(1, 10 * MS);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status);
            assertEquals(40 + 24, wcs.get(0).byteLen, "GRH plus payload");
            assertEquals(h.a.qpNum(), wcs.get(0).srcQp);
            assertNotEquals(0, wcs.get(0).flags & WorkCompletion.GRH);
            assertEquals(6, mr.segment().get(ValueLayout.JAVA_BYTE, 40), "the payload starts after 40 bytes");
            assertEquals(0x6, (mr.segment().get(ValueLayout.JAVA_BYTE, 0) >> 4) & 0xF, "IP version 6 in the GRH");
            assertEquals(0x1B, mr.segment().get(ValueLayout.JAVA_BYTE, 6), "next header: IBA transport");
            assertEquals(24 + 24, mr.segment().get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 4),
                    "payload length: BTH, DETH, payload and ICRC");
        }
    }

    @Test
    void aUdSendWithAnotherQkeyIsDroppedAndCounted() {
        try (ResponderHarness h = ResponderHarness.of(QpType.UD)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            h.postRecv(5, mr, 0, 4096);
            Packet p = payload(h.request(Opcode.SEND_ONLY, 0), 24, 6);
            p.dethQkey = h.qb.qkey ^ 1;
            p.dethSrcQp = h.a.qpNum();
            h.deliver(p);
            assertTrue(h.rig.pendingB().isEmpty());
            assertEquals(1, h.qb.counters().get(Counter.DROP_QKEY));
        }
    }

    private static Packet payload(Packet p, int len, int fill) {
        return p.payload(ResponderHarness.bytes(len, fill), 0, len);
    }
}
