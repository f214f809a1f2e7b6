package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class MacControlAndClassifierTest {
    @Test
    void pfcAndPauseFramesBuildAndParse() {
        final UnsafeBuffer b = new UnsafeBuffer(new byte[128]);
        final int len = MacControlFrame.putPfc(b, 0, 0x525400000001L, 0b1000_1000, new int[] { 1, 2, 3, 0xFFFF, 5, 6, 7, 8 });
        assertEquals(60, len);
        assertEquals(MacControlFrame.DST_MAC, EthernetHeader.dst(b, 0));
        assertTrue(MacControlFrame.isPfc(b, 0, len));
        assertEquals(0x88, MacControlFrame.classEnable(b, 0));
        assertEquals(0xFFFF, MacControlFrame.pfcQuanta(b, 0, 3));
        assertEquals(8, MacControlFrame.pfcQuanta(b, 0, 7));
        assertEquals(0, MacControlFrame.pfcQuanta(b, 0, 0)); // disabled class written as 0
        assertEquals(0, b.getByte(59));
        assertEquals(FrameClass.PFC, new AnyFrameDecoder().classify(b, 0, len));

        final int plen = MacControlFrame.putPause(b, 0, 0x525400000002L, 300);
        assertEquals(60, plen);
        assertTrue(MacControlFrame.isPause(b, 0, plen));
        assertEquals(300, MacControlFrame.pauseQuanta(b, 0));
        assertEquals(FrameClass.PAUSE, new AnyFrameDecoder().classify(b, 0, plen));
        assertEquals(6L, MacControlFrame.quantaToNanos(1, 100_000_000_000L)); // 5.12 ns, rounded up
        assertEquals(52, MacControlFrame.nanosToQuanta(2_662, 10_000_000_000L));
        assertThrows(IllegalArgumentException.class, () -> MacControlFrame.putPfc(b, 0, 1, 0x100, new int[8]));
    }

    @Test
    void aPauseInNanosecondsNeverEndsBeforeItsQuantaHavePassed() {
        for (long rate : new long[] {1_000_000_000L, 10_000_000_000L, 25_000_000_000L, 40_000_000_000L, 100_000_000_000L,
                200_000_000_000L}) {
            for (int quanta = 1; quanta <= 0xFFFF; quanta += 97) {
                long bitPs = quanta * 512L * (1_000_000_000_000L / rate); // a whole number of ps per bit at these rates
                long ns = MacControlFrame.quantaToNanos(quanta, rate);
                assertTrue(ns * 1000 >= bitPs, quanta + " quanta at " + rate + ": " + ns + " ns is early");
                assertTrue((ns - 1) * 1000 < bitPs, quanta + " quanta at " + rate + ": " + ns + " ns is a whole ns late");
            }
        }
        assertEquals(3356L, MacControlFrame.quantaToNanos(0xFFFF, 10_000_000_000_000L)); // 3355.392 ns up to 3356
    }

    @Test
    void classifierPicksTheFramingThatEncodedTheFrame() {
        final SplittableRandom r = new SplittableRandom(3);
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[256]);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[2048]);
        final Packet p = new Packet();
        final Packet out = new Packet();
        final AnyFrameDecoder auto = new AnyFrameDecoder();
        for (final FramingKind kind : new FramingKind[] {
            FramingKind.ROCE1, FramingKind.ROCE2, FramingKind.PAXI_STANDARD, FramingKind.PAXI_AFH1, FramingKind.PAXI_AFH2 }) {
            final Framing f = Framings.of(kind);
            for (final int op : RandomPackets.opcodes(kind)) {
                RandomPackets.fill(r, p, kind, op, r.nextBoolean(), payload, 100);
                if (kind == FramingKind.PAXI_AFH2) {
                    p.dstQpid = p.destQp & 0xFFFF;        // the convention the auto heuristic relies on
                } else if (kind == FramingKind.PAXI_AFH1 && (p.srcMac >>> 8 & 0xFFFF) == (p.destQp & 0xFFFF)) {
                    p.srcMac ^= 0x100;
                }
                final int len = f.encode(p, frame, 0);
                assertEquals(kind, auto.classify(frame, 0, len).framing(), kind + " " + p);
                assertEquals(DecodeStatus.OK, auto.decode(frame, 0, len, out));
                assertEquals(p.psn, out.psn);
            }
        }
        final AnyFrameDecoder lite = new AnyFrameDecoder(null, true, true);
        p.reset();
        p.opcode = Opcode.UC_SEND_ONLY;
        p.dstQpid = 77;
        final int len = Framings.of(FramingKind.PAXI_LITE).encode(p, frame, 0);
        assertEquals(FrameClass.PAXI_LITE, lite.classify(frame, 0, len));
        assertEquals(DecodeStatus.OK, lite.decode(frame, 0, len, out));
        assertEquals(77, out.destQp);
        assertEquals(FrameClass.RUNT, auto.classify(frame, 0, 13));

        // the caller's AFH hint overrides the heuristic
        p.reset();
        p.opcode = Opcode.RC_SEND_ONLY;
        p.destQp = 0x1234;
        p.dstQpid = 0x1234;
        final int afh = Framings.of(FramingKind.PAXI_AFH2).encode(p, frame, 0);
        assertEquals(FrameClass.PAXI_AFH2, auto.classify(frame, 0, afh));
        assertEquals(FrameClass.PAXI_AFH1, new AnyFrameDecoder(FramingKind.PAXI_AFH1, false, true).classify(frame, 0, afh));
    }

    @Test
    void ecnMarkKeepsTheIpChecksumAndTheIcrcValid() {
        final Framing f = Framings.of(FramingKind.ROCE2);
        final Packet p = new Packet();
        p.opcode = Opcode.RC_SEND_ONLY;
        p.tos = Ipv4Header.ECN_ECT0;
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[128]);
        final int len = f.encode(p, frame, 0);
        Ipv4Header.ecn(frame, 14, Ipv4Header.ECN_CE);
        final Packet out = new Packet();
        assertEquals(DecodeStatus.OK, f.decode(frame, 0, len, out));
        assertEquals(Ipv4Header.ECN_CE, out.tos & Ipv4Header.ECN_MASK);
    }

    @Test
    void sourcePortsFollowLinux() {
        assertEquals(0xC121, UdpHeader.roceSourcePort(0x11, 0x11, 0));   // vectors frame 1
        assertEquals(0xC1B9, UdpHeader.roceSourcePort(0x15, 0x15, 0));   // vectors frame 60
        assertEquals(0xD078, UdpHeader.roceSourcePort(0x13));            // vectors frame 56, UD source QP 0x13
        for (int q = 0; q < 5000; q += 7) {
            final int port = UdpHeader.roceSourcePort(q);
            assertTrue(port >= 0xC000 && port <= 0xFFFF);
        }
    }

    @Test
    void gidHelpers() {
        final long mac = 0x525400770003L;
        assertEquals(0x505400FFFE770003L, Ipv6Header.eui64(mac));   // fe80::5054:ff:fe77:3 as in the vectors
        assertEquals(mac, Ipv6Header.macFromEui64(Ipv6Header.eui64(mac)));
        assertEquals(0xFFFF0A4D0002L, Ipv6Header.ipv4MappedLo(0x0A4D0002));
    }
}
