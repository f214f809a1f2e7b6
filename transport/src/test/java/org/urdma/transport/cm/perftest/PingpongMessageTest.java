package org.urdma.transport.cm.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PingpongMessageTest {

    @Test
    void encodesExactlyWhatPingpongPrints() throws Exception {
        PingpongDest d = new PingpongDest(0, 0x11, 0x5a3c01, PerftestKeysTest.gid("10.77.0.12"));
        String expected = "0000:000011:5a3c01:00000000000000000000ffff0a4d000c\0";
        assertEquals(52, expected.length());
        assertArrayEquals(expected.getBytes(StandardCharsets.US_ASCII), PingpongMessage.encode(d));
        assertEquals(d, PingpongMessage.decode(PingpongMessage.encode(d)));
    }

    @Test
    void rejectsGarbageNamingTheField() throws Exception {
        byte[] m = PingpongMessage.encode(new PingpongDest(0, 1, 2, new byte[16]));
        m[30] = 'z';
        ExchangeFormatException e = assertThrows(ExchangeFormatException.class, () -> PingpongMessage.decode(m));
        assertTrue(e.getMessage().contains("gid[5]"), e.getMessage());
        assertThrows(ExchangeFormatException.class, () -> PingpongMessage.decode(new byte[51]));
        Random r = new Random(7);
        for (int i = 0; i < 1000; i++) {
            byte[] g = new byte[52];
            r.nextBytes(g);
            assertThrows(ExchangeFormatException.class, () -> PingpongMessage.decode(g));
        }
    }

    @Test
    void doneIsFiveBytes() {
        assertArrayEquals(new byte[] {'d', 'o', 'n', 'e', 0}, PingpongMessage.done());
        assertTrue(PingpongMessage.isDone("done\0".getBytes(StandardCharsets.US_ASCII)));
    }
}
