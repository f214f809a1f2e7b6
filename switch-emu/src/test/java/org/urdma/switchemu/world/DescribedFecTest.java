package org.urdma.switchemu.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.cm.WanOffer;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.impair.PsnDropRule;
import org.urdma.transport.impair.PsnPattern;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * P-FEC when frames describe their payloads: parity XORs what a frame carries (headers and the description), so a
 * lost packet is rebuilt as its description and placed through the same seam as an arrival; and a parity frame still
 * takes the wire time of the bytes it stands for. The same WAN workload with one loss per stripe gives, with bytes and
 * with descriptions, the same frames at the same times, the same counters, every loss rebuilt, nothing resent.
 */
class DescribedFecTest {
    private static final long RATE = 25_000_000_000L;
    private static final long START = 1_000_000;
    private static final int WAN_FEC = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK
            | OpcodeTable.UETH_FEC;
    /** Groups of 8 with 2 parities (stripes: even and odd offsets of a group); at most one loss per stripe. */
    private static final String DROPS = "3,10,13,20,60,101";

    private record Run(List<String> framesSentByA, List<String> framesReceivedByA, FlowResult result,
                       List<String> counters, long switchTxBytes, long dropped, long repaired, long resent,
                       long paritySent, int biggestFrameSent) {
    }

    private static Run run(boolean described) throws IOException {
        SwitchConfig sc = new SwitchConfig().bufferBytes(4_000_000);
        sc.port(new PortConfig().rateBps(RATE));
        sc.port(new PortConfig().rateBps(RATE));
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        try (World w = new World(11, START)) {
            if (described) w.describePayloads();
            SwitchNode s = w.addSwitch("s1", sc);
            DeviceHost a = w.addDevice(DeviceConfig.named("a", 1), 4096, 0);
            DeviceHost b = w.addDevice(DeviceConfig.named("b", 2), 4096, 0);
            w.connect(a, s, 0, RATE, 2_000, null, null);
            w.connect(b, s, 1, RATE, 2_000, null, null);
            PsnDropRule rule = w.dropPsns(b, PsnPattern.of(-1, DROPS));
            w.capture(a, sent, received);
            // an ACK timeout far beyond the run: a loss FEC did not rebuild would show as a SACK resend
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withTimeout(14).withMtu(PathMtu.MTU_4096);
            MessageWorkload m = new MessageWorkload(w, "write", a, b, MessageWorkload.Op.WRITE, QpType.RC,
                    64 * 1024 + 100, 4, 8, Long.MAX_VALUE, LossRecovery.sack(), RateControl.none(),
                    new WanOffer(WAN_FEC, "none", 0, 8, 2), c, 5);
            w.add(a, m, START);
            assertTrue(w.runUntilFinished(START + 1_000_000_000L), "the workload finished by 1 s");
            SoftQp qp = (SoftQp) m.qp();
            SoftQp peer = (SoftQp) m.peer();
            List<String> counters = new ArrayList<>();
            for (SoftQp q : List.of(qp, peer)) {
                StringBuilder sb = new StringBuilder();
                for (Counter k : Counter.values()) {
                    // a described parity holds the XOR of descriptions: its receiver counts those bytes, not the 4 KiB
                    // it stands for (the wire time and the sender's counters are the bytes')
                    if (q == peer && k == Counter.RCVD_BYTES) continue;
                    sb.append(' ').append(k).append('=').append(q.counters().get(k));
                }
                counters.add(sb.toString());
            }
            long switchTx = s.core().counters(0).txBytes + s.core().counters(1).txBytes;
            List<String> tx = new ArrayList<>();
            List<String> rx = new ArrayList<>();
            int biggest = DescribedPayloadsTest.frames(sent.toByteArray(), tx);
            DescribedPayloadsTest.frames(received.toByteArray(), rx);
            return new Run(tx, rx, m.result(), counters, switchTx, rule.dropped(),
                    peer.counters().get(Counter.FEC_REPAIRED), qp.stats().get(Counter.RETRANSMITTED_PKTS),
                    qp.counters().get(Counter.FEC_PARITY_SENT), biggest);
        }
    }

    @Test
    void aSingleLossPerStripeIsRebuiltFromDescriptionsAsFromBytes() throws IOException {
        Run bytes = run(false);
        Run described = run(true);
        for (Run r : List.of(bytes, described)) {
            String what = r == bytes ? "bytes: " : "described: ";
            assertEquals(6, r.dropped, what + "the pattern dropped its PSNs");
            assertEquals(6, r.repaired, what + "every loss rebuilt from parity");
            assertEquals(0, r.resent, what + "nothing resent");
            assertTrue(r.paritySent >= 2 * 17, what + "parity after every group: " + r.paritySent);
            assertEquals(8, r.result.messages(), what + "every message completed");
            assertEquals(Boolean.TRUE, r.result.memoryVerified(), what + "memory verified");
        }
        assertEquals(bytes.framesSentByA, described.framesSentByA, "frames a sent (parity too): times, opcodes, PSNs");
        assertEquals(bytes.framesReceivedByA, described.framesReceivedByA, "frames a received");
        assertEquals(bytes.result, described.result);
        assertEquals(bytes.counters, described.counters, "per-QP counters at both ends");
        assertEquals(bytes.switchTxBytes, described.switchTxBytes, "parity takes the wire bytes it stands for");
        assertTrue(described.biggestFrameSent < 300, "described frames and their parity stay small: "
                + described.biggestFrameSent);
    }
}
