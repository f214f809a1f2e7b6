package org.urdma.transport.cm.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The binary struct pingpong_dest perftest sends over rdma_cm (-R): its layout, both ways. */
class PerftestKeysBinaryTest {
    @Test
    void fieldsSitWhereX8664PutsThemBigEndian() throws Exception {
        byte[] gid = new byte[16];
        for (int i = 0; i < 16; i++) gid[i] = (byte) (0xA0 + i);
        PerftestDest d = new PerftestDest(0x12, 0x10, 0x1234, 0xABCDEF, 0xCAFEBABE, 0x00007F0011223344L, gid, 0x55);
        byte[] m = PerftestKeysBinary.encode(d);
        assertEquals(56, m.length);
        ByteBuffer b = ByteBuffer.wrap(m);
        assertEquals(0x12, b.getInt(0));
        assertEquals(0x10, b.getInt(4));
        assertEquals(0x1234, b.getInt(8));
        assertEquals(0xABCDEF, b.getInt(12));
        assertEquals(0xCAFEBABE, b.getInt(16));
        assertEquals(0x00007F0011223344L, b.getLong(24)); // 4 bytes of padding before the 8-byte vaddr
        assertEquals((byte) 0xA0, m[32]);
        assertEquals(0x55, b.getInt(48));
        PerftestDest back = PerftestKeysBinary.decode(m);
        assertEquals(d.qpn(), back.qpn());
        assertEquals(d.vaddr(), back.vaddr());
        assertArrayEquals(gid, back.gid());
    }

    @Test
    void aShortMessageIsRefusedNamingItsLength() {
        ExchangeFormatException e = assertThrows(ExchangeFormatException.class, () -> PerftestKeysBinary.decode(new byte[40]));
        assertEquals("perftest key message over rdma_cm: 40 bytes, need 56", e.getMessage());
    }
}
