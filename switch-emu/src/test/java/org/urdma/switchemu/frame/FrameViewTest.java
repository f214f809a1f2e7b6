package org.urdma.switchemu.frame;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.sim.Frames;


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
