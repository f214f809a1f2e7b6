package org.urdma.transport.cm.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PerftestKeysTest {

    static byte[] gid(String ipv4) throws Exception {
        return Gids.ipv4Mapped((Inet4Address) InetAddress.getByName(ipv4));
    }

    static PerftestDest sample() throws Exception {
        return new PerftestDest(0, 0x80, 0x11, 0xabcdef, 0x1234, 0x55d0c0de1000L, gid("10.77.0.11"), 0);
    }

    @Test
    void encodesExactlyWhatPerftestPrints() throws Exception {
        byte[] m = PerftestKeys.encode(sample());
        String expected = "0000:0080:000011:abcdef:00001234:000055d0c0de1000:"
                + "00:00:00:00:00:00:00:00:00:00:ff:ff:0a:4d:00:0b:" + "00000000:" + "\0";
        assertEquals(108, expected.length());
        assertArrayEquals(expected.getBytes(StandardCharsets.US_ASCII), m);
    }

    @Test
    void roundTripsEveryFieldAtItsLimits() throws Exception {
        byte[] g = new byte[16];
        for (int i = 0; i < 16; i++) {
            g[i] = (byte) (0xf0 + i);
        }
        PerftestDest d = new PerftestDest(0xffff, 0xffff, 0xffffff, 0xffffff, 0xffffffff, -1L, g, 0xffffffff);
        assertEquals(d, PerftestKeys.decode(PerftestKeys.encode(d)));
        assertEquals(sample(), PerftestKeys.decode(PerftestKeys.encode(sample())));
    }

    @Test
    void acceptsUpperCaseHexAsStrtolWould() throws Exception {
        byte[] m = PerftestKeys.encode(sample());
        String s = new String(m, StandardCharsets.US_ASCII).toUpperCase();
        assertEquals(sample(), PerftestKeys.decode(s.getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void rejectsWrongLength() {
        ExchangeFormatException e = assertThrows(ExchangeFormatException.class, () -> PerftestKeys.decode(new byte[59]));
        assertTrue(e.getMessage().contains("108"), e.getMessage());
    }

    @Test
    void rejectsNonHexNamingFieldAndOffset() throws Exception {
        byte[] m = PerftestKeys.encode(sample());
        m[12] = 'g'; // inside the qpn
        ExchangeFormatException e = assertThrows(ExchangeFormatException.class, () -> PerftestKeys.decode(m));
        assertTrue(e.getMessage().contains("qpn") && e.getMessage().contains("offset 12"), e.getMessage());
    }

    @Test
    void rejectsMissingSeparator() throws Exception {
        byte[] m = PerftestKeys.encode(sample());
        m[49] = ';'; // the ':' after vaddr
        ExchangeFormatException e = assertThrows(ExchangeFormatException.class, () -> PerftestKeys.decode(m));
        assertTrue(e.getMessage().contains("vaddr") && e.getMessage().contains("49"), e.getMessage());
    }

    @Test
    void rejectsMissingNul() throws Exception {
        byte[] m = PerftestKeys.encode(sample());
        m[107] = 'x';
        ExchangeFormatException e = assertThrows(ExchangeFormatException.class, () -> PerftestKeys.decode(m));
        assertTrue(e.getMessage().contains("NUL"), e.getMessage());
    }

    @Test
    void rejectsRandomGarbageWithoutOtherExceptions() {
        java.util.Random r = new java.util.Random(42);
        for (int i = 0; i < 1000; i++) {
            byte[] m = new byte[108];
            r.nextBytes(m);
            assertThrows(ExchangeFormatException.class, () -> PerftestKeys.decode(m));
        }
    }

    @Test
    void destRejectsOutOfRangeFields() throws Exception {
        byte[] g = gid("10.0.0.1");
        assertThrows(IllegalArgumentException.class, () -> new PerftestDest(0, 0, 0x1000000, 0, 0, 0, g, 0));
        assertThrows(IllegalArgumentException.class, () -> new PerftestDest(0, 0, 0, -1, 0, 0, g, 0));
        assertThrows(IllegalArgumentException.class, () -> new PerftestDest(0, 0, 0, 0, 0, 0, new byte[4], 0));
    }

    @Test
    void gidHelpersSeeTheIpv4Address() throws Exception {
        byte[] g = gid("10.77.0.11");
        assertTrue(Gids.isIpv4Mapped(g));
        assertEquals("10.77.0.11", Gids.ipv4Of(g).getHostAddress());
        assertEquals("0000:0000:0000:0000:0000:ffff:0a4d:000b", Gids.toString(g));
    }
}
