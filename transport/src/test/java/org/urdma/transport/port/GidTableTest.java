package org.urdma.transport.port;

import static org.junit.jupiter.api.Assertions.*;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.Gid;

class GidTableTest {
    static final byte[] MAC = PortIdentity.parseMac("52:54:00:12:34:56");

    @Test
    void indexZeroIsTheEui64LinkLocalGidAndIndexOneTheIpv4MappedGid() {
        GidTable t = new GidTable(PortIdentity.of(MAC, "192.168.7.9/24"));
        assertEquals(2, t.size());
        assertEquals("fe80:0000:0000:0000:5054:00ff:fe12:3456", t.gid(0).toString());
        assertEquals("0000:0000:0000:0000:0000:ffff:c0a8:0709", t.gid(1).toString());
        assertEquals(t.gid(1), t.gidFor(FramingKind.ROCE2));
        assertEquals(t.gid(0), t.gidFor(FramingKind.ROCE1));
        assertEquals(1, t.indexOf(t.gid(1)));
    }

    @Test
    void theInverseMappingsRecoverMacAndAddress() {
        GidTable t = new GidTable(PortIdentity.of(MAC, "10.1.2.3/8"));
        assertArrayEquals(MAC, GidTable.macOf(t.gid(0)));
        assertEquals(PortIdentity.parseIpv4("10.1.2.3"), GidTable.ipv4Of(t.gid(1)));
        assertFalse(GidTable.isMacDerived(t.gid(1)));
        assertFalse(GidTable.isIpv4Mapped(t.gid(0)));
        assertThrows(IllegalArgumentException.class, () -> GidTable.macOf(t.gid(1)));
    }

    @Test
    void roce2WithoutAnAddressIsRefusedWithAHint() {
        GidTable t = new GidTable(PortIdentity.ofMac(MAC));
        assertEquals(1, t.size());
        var e = assertThrows(IllegalArgumentException.class, () -> t.gidFor(FramingKind.ROCE2));
        assertTrue(e.getMessage().contains("--ip"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.gid(1));
    }

    @Test
    void portIdentityParsesAndChecks() {
        PortIdentity p = PortIdentity.of(MAC, "10.0.0.5/24");
        assertTrue(p.onLink(PortIdentity.parseIpv4("10.0.0.200")));
        assertFalse(p.onLink(PortIdentity.parseIpv4("10.0.1.1")));
        assertThrows(IllegalArgumentException.class, () -> PortIdentity.of(MAC, "10.0.0/24"));
        assertThrows(IllegalArgumentException.class, () -> PortIdentity.of(MAC, "10.0.0.1/33"));
        assertThrows(IllegalArgumentException.class, () -> PortIdentity.ofMac(PortIdentity.parseMac("01:00:5e:00:00:01")));
    }

    @Test
    void arpFramesRoundTripWithAndWithoutATag() {
        UnsafeBuffer b = new UnsafeBuffer(new byte[128]);
        for (int tci : new int[] {-1, (3 << 13) | 10}) {
            int len = ArpFrame.encode(b, 4, ArpFrame.BROADCAST, 0x020000000001L, tci, ArpFrame.REQUEST, 0x0A000001, 0, 0x0A000002);
            assertEquals(60, len);
            int body = ArpFrame.bodyOffset(b, 4, len);
            assertTrue(body > 0);
            assertEquals(ArpFrame.REQUEST, ArpFrame.operation(b, body));
            assertEquals(0x020000000001L, ArpFrame.senderMac(b, body));
            assertEquals(0x0A000001, ArpFrame.senderIp(b, body));
            assertEquals(0x0A000002, ArpFrame.targetIp(b, body));
            assertEquals(-1, ArpFrame.bodyOffset(b, 4, 40), "truncated");
        }
        b.putByte(4 + 12 + 2 + 5, (byte) 16); // plen 16: not IPv4 ARP
        assertEquals(-1, ArpFrame.bodyOffset(b, 4, 60));
    }

    @Test
    void gidOfIpv4MatchesTheTable() {
        assertEquals(Gid.fromIpv4(new byte[] {10, 0, 0, 1}), new GidTable(PortIdentity.of(MAC, "10.0.0.1/24")).gid(1));
    }
}
