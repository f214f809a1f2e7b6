package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpState;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/** DC-mode READ responses into A's completer, hand-made, one at a time. */
class InOrderReadsTest {
    static final long MS = ResponderHarness.MS;
    static final long REMOTE = 0x7000_0000L;

    @Test
    void responsesInPsnOrderLandAtTheirOffsetsAndCompleteTheRead() {
        try (RequesterHarness h = new RequesterHarness(0)) {
            int mtu = h.qa.mtu;
            MemoryRegion local = h.rig.mrA(3 * mtu, AccessFlags.LOCAL_WRITE);
            int p0 = postRead(h, local, 3 * mtu);
            h.deliver(h.response(Opcode.RC_RDMA_READ_RESPONSE_FIRST, p0).payload(RequesterHarness.bytes(mtu, 1), 0, mtu));
            h.deliver(h.response(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, Psn.add(p0, 1)).payload(RequesterHarness.bytes(mtu, 2), 0, mtu));
            assertTrue(h.rig.pendingA().isEmpty(), "not done before its last response");
            h.deliver(h.response(Opcode.RC_RDMA_READ_RESPONSE_LAST, Psn.add(p0, 2)).payload(RequesterHarness.bytes(mtu, 3), 0, mtu));
            List<WorkCompletion> wcs = h.rig.awaitA(1, MS);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status);
            assertEquals(3 * mtu, wcs.get(0).byteLen);
            for (int i = 0; i < 3; i++) assertEquals(i + 1, local.segment().get(ValueLayout.JAVA_BYTE, (long) i * mtu + 7));
            assertEquals(Psn.add(p0, 3), h.qa.completer.compPsn);
        }
    }

    @Test
    void aGapInTheResponsesAsksAgainFromTheFirstMissingPsn() {
        try (RequesterHarness h = new RequesterHarness(0)) {
            int mtu = h.qa.mtu;
            MemoryRegion local = h.rig.mrA(3 * mtu, AccessFlags.LOCAL_WRITE);
            int p0 = postRead(h, local, 3 * mtu);
            h.deliver(h.response(Opcode.RC_RDMA_READ_RESPONSE_FIRST, p0).payload(RequesterHarness.bytes(mtu, 1), 0, mtu));
            h.sent.clear();
            h.deliver(h.response(Opcode.RC_RDMA_READ_RESPONSE_LAST, Psn.add(p0, 2)).payload(RequesterHarness.bytes(mtu, 3), 0, mtu));
            assertEquals(1, h.qa.completer.readGaps());
            List<Packet> again = h.sentOf(Opcode.RC_RDMA_READ_REQUEST);
            assertEquals(1, again.size(), "the READ is asked for again");
            assertEquals(Psn.add(p0, 1), again.get(0).psn, "from the first PSN missing");
            assertEquals(REMOTE + mtu, again.get(0).rethVa, "at that response's offset");
            assertEquals(2 * mtu, again.get(0).rethDmaLength, "for the rest of the READ");
            assertEquals(0, local.segment().get(ValueLayout.JAVA_BYTE, 2L * mtu), "the response past the gap was not placed");
        }
    }

    @Test
    void aLastResponseOfTheWrongLengthFailsTheReadWithBadRespErr() {
        try (RequesterHarness h = new RequesterHarness(0)) {
            int mtu = h.qa.mtu;
            MemoryRegion local = h.rig.mrA(2 * mtu, AccessFlags.LOCAL_WRITE);
            int p0 = postRead(h, local, 2 * mtu);
            h.deliver(h.response(Opcode.RC_RDMA_READ_RESPONSE_FIRST, p0).payload(RequesterHarness.bytes(mtu, 1), 0, mtu));
            h.deliver(h.response(Opcode.RC_RDMA_READ_RESPONSE_LAST, Psn.add(p0, 1)).payload(RequesterHarness.bytes(mtu - 1, 3), 0, mtu - 1));
            assertEquals(WcStatus.BAD_RESP_ERR, h.rig.awaitA(1, MS).get(0).status);
            assertEquals(QpState.ERR, h.a.state());
        }
    }

    /** Posts a READ of {@code len} bytes into {@code local} and returns the PSN of its request as A sent it. */
    static int postRead(RequesterHarness h, MemoryRegion local, int len) {
        h.a.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .addSge(local, 0, len).remote(REMOTE, 0x1234));
        h.rig.run(MS / 10);
        List<Packet> reqs = h.sentOf(Opcode.RC_RDMA_READ_REQUEST);
        assertEquals(1, reqs.size(), "A sent the READ request");
        return reqs.get(0).psn;
    }
}
