package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WrOpcode;

/** The packets A's requester makes of a work request: opcodes by position, headers, AckReq, PSNs. */
class RequesterPacketsTest {
    static final long MS = ResponderHarness.MS;

    @Test
    void aSendOfThreeMtusIsFirstMiddleLastWithConsecutivePsnsAndAckReqAtItsEnd() {
        try (RequesterHarness h = new RequesterHarness(0)) {
            int mtu = h.qa.mtu;
            MemoryRegion local = h.rig.mrA(3 * mtu, AccessFlags.LOCAL_WRITE);
            h.a.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED | SendFlags.SOLICITED)
                    .addSge(local, 0, 3 * mtu - 5));
            h.rig.run(MS / 10);
            List<Packet> p = h.sent;
            assertEquals(3, p.size());
            assertEquals(Opcode.RC_SEND_FIRST, p.get(0).opcode);
            assertEquals(Opcode.RC_SEND_MIDDLE, p.get(1).opcode);
            assertEquals(Opcode.RC_SEND_LAST, p.get(2).opcode);
            assertEquals(Psn.add(p.get(0).psn, 1), p.get(1).psn);
            assertEquals(Psn.add(p.get(0).psn, 2), p.get(2).psn);
            assertEquals(mtu, p.get(0).payloadLength);
            assertEquals(mtu - 5, p.get(2).payloadLength);
            assertFalse(p.get(0).ackReq);
            assertTrue(p.get(2).ackReq, "the message's end asks for an ACK");
            assertFalse(p.get(0).se);
            assertTrue(p.get(2).se, "solicited on the last packet only");
            assertEquals(Psn.add(p.get(0).psn, 3), h.qa.requester.firstUnassignedPsn);
            assertEquals(Psn.add(p.get(0).psn, 3), h.qa.requester.firstUnsentPsn());
        }
    }

    @Test
    void aWriteCarriesItsRethOnTheFirstPacketOnlyAndItsImmediateOnTheLast() {
        try (RequesterHarness h = new RequesterHarness(0)) {
            int mtu = h.qa.mtu;
            MemoryRegion local = h.rig.mrA(2 * mtu, AccessFlags.LOCAL_WRITE);
            h.a.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).flags(SendFlags.SIGNALED)
                    .addSge(local, 0, 2 * mtu).remote(0x5000_0000L, 0x77).immData(0xCAFE));
            h.rig.run(MS / 10);
            List<Packet> p = h.sent;
            assertEquals(2, p.size());
            assertEquals(Opcode.RC_RDMA_WRITE_FIRST, p.get(0).opcode);
            assertEquals(0x5000_0000L, p.get(0).rethVa);
            assertEquals(0x77, p.get(0).rethRkey);
            assertEquals(2 * mtu, p.get(0).rethDmaLength);
            assertEquals(Opcode.RC_RDMA_WRITE_LAST_WITH_IMM, p.get(1).opcode);
            assertEquals(0, p.get(1).headerMask & OpcodeTable.HDR_RETH, "no RETH past the first packet in DC mode");
            assertEquals(0xCAFE, p.get(1).immDt);
        }
    }

    @Test
    void inWanModeEverySendPacketSaysItsOffsetReceiveSequenceAndLength() {
        try (RequesterHarness h = new RequesterHarness(OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK)) {
            int mtu = h.qa.mtu;
            MemoryRegion local = h.rig.mrA(3 * mtu, AccessFlags.LOCAL_WRITE);
            h.a.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).addSge(local, 0, 8));
            h.a.postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).addSge(local, 0, 8).remote(0x5000_0000L, 0x77));
            h.a.postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(local, 0, 2 * mtu));
            h.rig.run(MS / 10);
            List<Packet> p = h.sent;
            assertEquals(4, p.size());
            assertEquals(0, p.get(0).rethRkey, "the first SEND consumes receive 0");
            assertEquals(0x77, p.get(1).rethRkey, "a WRITE's RETH is its own");
            assertEquals(Opcode.RC_SEND_LAST, p.get(3).opcode);
            assertEquals(1, p.get(3).rethRkey, "the second SEND consumes receive 1 (the WRITE consumes none)");
            assertEquals(mtu, p.get(3).rethVa, "offset in the message");
            assertEquals(2 * mtu, p.get(3).rethDmaLength, "the message's length");
        }
    }

    @Test
    void anAtomicIsOnePacketWithItsAtomicEthAndAckReq() {
        try (RequesterHarness h = new RequesterHarness(0)) {
            MemoryRegion local = h.rig.mrA(8, AccessFlags.LOCAL_WRITE);
            h.a.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED)
                    .addSge(local, 0, 8).remote(0x5000_0008L, 0x77).atomic(5, 9));
            h.rig.run(MS / 10);
            assertEquals(1, h.sent.size());
            Packet p = h.sent.get(0);
            assertEquals(Opcode.RC_COMPARE_SWAP, p.opcode);
            assertTrue(p.ackReq);
            assertEquals(0x5000_0008L, p.atomicVa);
            assertEquals(5, p.atomicCompare);
            assertEquals(9, p.atomicSwapAdd);
        }
    }
}
