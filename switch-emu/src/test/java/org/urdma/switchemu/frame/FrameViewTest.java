package org.urdma.switchemu.frame;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.sim.Frames;

import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrameViewTest {
    private static final long DA = Mac.parse("02:00:00:00:00:02");
    private static final long SA = Mac.parse("02:00:00:00:00:01");

    @Test
    void readsVlanPcpEtherTypeAndIpv4TosBehindATag() {
        byte[] f = Frames.ipv4Udp(DA, SA, 5, 46, 0b10, 100);
        FrameView v = new FrameView();
        assertTrue(v.wrap(new UnsafeBuffer(f), 0, f.length, PortFormat.ETHERNET));
        assertEquals(DA, v.destination());
        assertEquals(SA, v.source());
        assertTrue(v.hasVlan());
        assertEquals(5, v.pcp());
        assertEquals(FrameView.ETHERTYPE_IPV4, v.etherType());
        assertEquals(18, v.ipv4Offset());
        assertEquals(46, v.dscp());
        assertEquals(0b10, v.ecn());
    }

    @Test
    void markCeKeepsTheIpv4ChecksumValid() {
        for (int ecn : new int[]{0b01, 0b10}) {
            for (int dscp = 0; dscp < 64; dscp += 7) {
                byte[] f = Frames.ipv4Udp(DA, SA, -1, dscp, ecn, 100);
                UnsafeBuffer b = new UnsafeBuffer(f);
                FrameView.markCe(b, 14);
                assertEquals(0b11, f[15] & 3);
                assertEquals(dscp, (f[15] & 0xFF) >>> 2);
                assertEquals(FrameView.ipv4Checksum(b, 14, 20), b.getShort(24, ByteOrder.BIG_ENDIAN) & 0xFFFF);
            }
        }
    }

    @Test
    void truncatedFramesAreMalformedAndBadIpv4IsJustNotIpv4() {
        FrameView v = new FrameView();
        assertFalse(v.wrap(new UnsafeBuffer(new byte[13]), 0, 13, PortFormat.ETHERNET));
        byte[] tagged = new byte[16];
        tagged[12] = (byte) 0x81;
        assertFalse(v.wrap(new UnsafeBuffer(tagged), 0, 16, PortFormat.ETHERNET));
        byte[] f = Frames.ipv4Udp(DA, SA, -1, 0, 0, 100);
        f[14] = 0x65; // version 6 in an IPv4 EtherType
        assertTrue(v.wrap(new UnsafeBuffer(f), 0, f.length, PortFormat.ETHERNET));
        assertFalse(v.isIpv4());
        assertEquals(-1, v.ecn());
    }

    @Test
    void afhLiteHasNoEtherType() {
        byte[] f = new byte[64];
        Mac.write(new UnsafeBuffer(f), 0, DA);
        f[12] = (byte) 0x81; // payload that would look like a VLAN tag
        FrameView v = new FrameView();
        assertTrue(v.wrap(new UnsafeBuffer(f), 0, f.length, PortFormat.AFH_LITE));
        assertTrue(v.isLite());
        assertFalse(v.hasVlan());
        assertEquals(-1, v.etherType());
        assertEquals(DA, v.destination());
    }

    @Test
    void pfcFrameRoundTripsPerWire8() {
        UnsafeBuffer b = new UnsafeBuffer(new byte[60]);
        int[] times = {1, 2, 3, 0xFFFF, 5, 6, 7, 8};
        assertEquals(60, MacControl.writePfc(b, 0, SA, 0b1000_1000, times));
        assertEquals(Mac.MAC_CONTROL, Mac.read(b, 0));
        assertEquals(SA, Mac.read(b, 6));
        assertEquals(0x8808, b.getShort(12, ByteOrder.BIG_ENDIAN) & 0xFFFF);
        assertEquals(MacControl.OPCODE_PFC, MacControl.opcode(b, 14, 60));
        assertEquals(0, b.getByte(16));
        assertEquals(0b1000_1000, MacControl.pfcClassEnable(b, 14, 60));
        assertEquals(0xFFFF, MacControl.pfcTime(b, 14, 3));
        assertEquals(8, MacControl.pfcTime(b, 14, 7));
        assertEquals(0, MacControl.pfcTime(b, 14, 0), "times of disabled classes are zero");
        assertEquals(0, MacControl.pfcClassEnable(b, 14, 20) + 1, "truncated → -1");
    }

    @Test
    void pauseFrameAndQuanta() {
        UnsafeBuffer b = new UnsafeBuffer(new byte[60]);
        MacControl.writePause(b, 0, SA, 1000);
        assertEquals(MacControl.OPCODE_PAUSE, MacControl.opcode(b, 14, 60));
        assertEquals(1000, MacControl.pauseTime(b, 14, 60));
        assertEquals(52, MacControl.quantaToNanos(1, 10_000_000_000L), "51.2 ns at 10G, rounded up");
        assertEquals(512, MacControl.quantaToNanos(100, 100_000_000_000L), "5.12 ns each at 100G");
    }

    @Test
    void macTextAndClassification() {
        assertEquals("01:80:c2:00:00:01", Mac.toString(Mac.MAC_CONTROL));
        assertTrue(Mac.isReservedLinkLocal(Mac.parse("01:80:C2:00:00:0E")));
        assertFalse(Mac.isReservedLinkLocal(Mac.parse("01:80:C2:00:00:10")));
        assertTrue(Mac.isGroup(Mac.BROADCAST));
        assertFalse(Mac.isGroup(SA));
        assertThrows(IllegalArgumentException.class, () -> Mac.parse("02:00:00:00:00"));
        assertThrows(IllegalArgumentException.class, () -> Mac.parse("02:00:00:00:00:zz"));
    }
}
