package org.urdma.transport.mcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.Gid;

/** The MACs of well-known groups, as the kernel's ipv6_eth_mc_map and ip_eth_mc_map give them. */
class MulticastMacTest {
    private static Gid gid(String ip) throws UnknownHostException {
        byte[] a = InetAddress.getByName(ip).getAddress();
        return a.length == 4 ? Gid.fromIpv4(a) : Gid.of(a);
    }

    @Test
    void ipv6GroupsMapTo3333AndTheLow32Bits() throws Exception {
        assertEquals(0x3333_0000_0001L, MulticastMac.of(gid("ff02::1"), "gid"), "all-nodes");
        assertEquals(0x3333_0000_00FBL, MulticastMac.of(gid("ff02::fb"), "gid"), "mDNS");
        assertEquals(0x3333_FF00_1234L, MulticastMac.of(gid("ff02::1:ff00:1234"), "gid"), "solicited-node");
        // the MGID the kernel's cma gives 239.1.2.3 on RoCEv1: ff0e::ffff:239.1.2.3
        byte[] v1 = gid("ff0e::").toBytes();
        v1[10] = (byte) 0xff;
        v1[11] = (byte) 0xff;
        v1[12] = (byte) 239;
        v1[13] = 1;
        v1[14] = 2;
        v1[15] = 3;
        assertEquals(0x3333_EF01_0203L, MulticastMac.of(Gid.of(v1), "gid"));
    }

    @Test
    void ipv4MappedGroupsMapTo01005eAndTheLow23Bits() throws Exception {
        assertEquals(0x0100_5E00_00FBL, MulticastMac.of(gid("224.0.0.251"), "gid"), "mDNS");
        assertEquals(0x0100_5E7F_FFFAL, MulticastMac.of(gid("239.255.255.250"), "gid"), "SSDP: bit 23 dropped");
        assertEquals(0x0100_5E01_0203L, MulticastMac.of(gid("239.129.2.3"), "gid"), "239.129 and 239.1 share a MAC");
        assertEquals(MulticastMac.of(gid("239.1.2.3"), "gid"), MulticastMac.of(gid("239.129.2.3"), "gid"));
        byte[] b = MulticastMac.bytes(gid("239.1.2.3"), "gid");
        assertEquals(0x01, b[0]);
        assertEquals(0x5e, b[2]);
        assertEquals(0x03, b[5]);
    }

    @Test
    void unicastGidsAreRefusedNamingTheField() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MulticastMac.of(gid("10.0.0.1"), "ah_attr.dgid"));
        assertTrue(e.getMessage().startsWith("ah_attr.dgid: "), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MulticastMac.of(gid("fe80::1"), "gid"));
        assertThrows(IllegalArgumentException.class, () -> MulticastMac.of(null, "gid"));
        assertFalse(gid("192.168.1.1").isMulticast());
        assertTrue(gid("224.0.0.1").isMulticast());
        assertFalse(gid("::e000:1").isMulticast(), "not IPv4-mapped");
    }

    @Test
    void theGroupBitTellsGroupMacs() {
        assertTrue(MulticastMac.isGroup(0x0100_5E00_0001L));
        assertTrue(MulticastMac.isGroup(0x3333_0000_0001L));
        assertFalse(MulticastMac.isGroup(0x0202_0000_0001L));
    }
}
