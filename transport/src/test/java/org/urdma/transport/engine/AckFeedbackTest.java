package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WrOpcode;

/** What hand-made WAN ACKs (AETH-EXT, SACK-ETH) tell A's rate control and loss recovery. */
class AckFeedbackTest {
    static final long MS = ResponderHarness.MS;
    static final int FLAGS = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;

    @Test
    void anAethExtGivesTheRoundTripWithoutTheHoldTimeAndTheBytesItsPsnNewlyAnswers() {
        try (RequesterHarness h = new RequesterHarness(FLAGS)) {
            WanSackTest.Recording rec = new WanSackTest.Recording();
            h.qa.rate = rec;
            int mtu = h.qa.mtu;
            int p0 = postWrites(h, 4, mtu);
            long now = h.rig.sim.now();
            Packet ack = h.response(Opcode.RC_ACKNOWLEDGE, Psn.add(p0, 1));
            ack.aethExtTs = 30_000;           // the responder's one-way delay of our packet
            ack.aethExtT3 = (int) now - 20_000; // when it sent this ACK: 20 us before it arrives
            ack.aethExtPsn = Psn.add(p0, 1);
            h.deliver(ack);
            assertFalse(rec.acks.isEmpty(), "the rate control heard the ACK");
            long[] first = rec.acks.get(0);
            int reverse = h.qa.requester.reverseOwd; // arrival - T3, kept for the next request's TS
            assertTrue(reverse >= 20_000 && reverse < 20_000 + MS, "reverse one-way delay " + reverse);
            assertEquals(2L * mtu, first[0], "two requests newly answered");
            assertEquals(30_000 + reverse, first[1], "forward plus reverse one-way delay");
            assertEquals(30_000, rec.delays.get(0)[0]);
            assertEquals(reverse, rec.delays.get(0)[1]);

            Packet again = h.response(Opcode.RC_ACKNOWLEDGE, Psn.add(p0, 1));
            again.aethExtTs = 30_000;
            again.aethExtT3 = (int) h.rig.sim.now();
            again.aethExtPsn = Psn.add(p0, 1);
            h.deliver(again);
            assertEquals(0, rec.acks.get(rec.acks.size() - 1)[0], "an answer already counted adds no bytes");
        }
    }

    @Test
    void eachNonEmptySackRangeReachesTheLossRecovery() {
        try (RequesterHarness h = new RequesterHarness(FLAGS)) {
            int p0 = postWrites(h, 6, h.qa.mtu);
            Packet ack = h.response(Opcode.RC_ACKNOWLEDGE, Psn.add(p0, -1));
            ack.aethExtT3 = (int) h.rig.sim.now();
            ack.aethExtPsn = Psn.add(p0, 5);
            ack.sackCount = 2;
            ack.sackCumulativePsn = p0;
            ack.sackRangeStart[0] = p0;
            ack.sackRangeLength[0] = 2;
            ack.sackRangeStart[1] = Psn.add(p0, 3);
            ack.sackRangeLength[1] = 0; // empty: ignored
            h.sent.clear();
            h.deliver(ack);
            assertEquals(1, h.qa.counters().get(Counter.SACK_RANGES_RCVD));
            // all six left together: the two missing ones are lost once the reorder wait after the last one's round
            // trip has passed
            h.rig.run(MS / 2);
            List<Integer> resent = new ArrayList<>();
            for (Packet p : h.sentOf(Opcode.RC_RDMA_WRITE_ONLY)) resent.add(p.psn);
            assertEquals(List.of(p0, Psn.add(p0, 1)), resent, "the range was resent");
            assertEquals(2, h.qa.counters().get(Counter.SACK_RESENT_PKTS));
        }
    }

    /** Posts {@code n} one-packet WRITEs and returns the first one's PSN as A sent it. */
    private static int postWrites(RequesterHarness h, int n, int len) {
        MemoryRegion local = h.rig.mrA((long) n * len, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < n; i++) {
            h.a.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(local, (long) i * len, len).remote(0x6000_0000L + (long) i * len, 0x99));
        }
        h.rig.run(MS / 10);
        List<Packet> w = h.sentOf(Opcode.RC_RDMA_WRITE_ONLY);
        assertEquals(n, w.size(), "A sent every WRITE");
        return w.get(0).psn;
    }
}
