package org.urdma.tools.pingpong;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.Gid;
import picocli.CommandLine;

class PingpongCheckTest {
    /** What a stock sender with -c puts in its buffer: memset 0x7b, then 0 at every page start. */
    private static MemorySegment stockBuffer(Arena a, int base, int size) {
        MemorySegment s = a.allocate(base + size);
        s.fill((byte) 0x7b);
        for (int i = 0; i < size; i += 4096) s.set(ValueLayout.JAVA_BYTE, base + i, (byte) 0);
        return s;
    }

    @Test
    void aBufferAsTheStockToolSendsItIsValidAndAnyChangedByteIsFound() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = stockBuffer(a, 40, 10000);
            assertEquals(-1, PingpongCheck.firstMismatch(s, 40, 10000));
            s.set(ValueLayout.JAVA_BYTE, 40 + 8192, (byte) 0x7b); // page 2 start not written
            assertEquals(8192, PingpongCheck.firstMismatch(s, 40, 10000));
            s.set(ValueLayout.JAVA_BYTE, 40 + 8192, (byte) 0);
            s.set(ValueLayout.JAVA_BYTE, 40 + 9999, (byte) 0x7c);
            assertEquals(9999, PingpongCheck.firstMismatch(s, 40, 10000));
        }
    }

    @Test
    void gidsPrintAsTheToolsPrintThem() {
        byte[] v4 = new byte[16];
        v4[10] = (byte) 0xff;
        v4[11] = (byte) 0xff;
        v4[12] = 10;
        v4[13] = 77;
        v4[15] = 50;
        assertEquals("::ffff:10.77.0.50", Pingpong.gidText(Gid.of(v4)));
        byte[] ll = new byte[16];
        ll[0] = (byte) 0xfe;
        ll[1] = (byte) 0x80;
        ll[15] = 1;
        assertEquals("fe80::1", Pingpong.gidText(Gid.of(ll)));
        ll[15] = 0;
        ll[8] = 2;
        assertEquals("fe80::200:0:0:0", Pingpong.gidText(Gid.of(ll)));
    }

    @Test
    void defaultsAreTheTools() {
        PingpongCommand c = new PingpongCommand();
        new CommandLine(c).parseArgs("--link", "tap:t0", "--ip", "10.0.0.2/24");
        assertEquals(18515, c.port);
        assertEquals(1000, c.iters);
        assertEquals(500, c.rxDepth);
        assertEquals(1024, c.mtu);
        assertEquals(null, c.size); // 4096 for rc/uc, 2048 for ud
        assertEquals(null, c.peer);
    }
}
