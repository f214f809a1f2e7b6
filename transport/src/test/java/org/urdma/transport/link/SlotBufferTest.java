package org.urdma.transport.link;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class SlotBufferTest {
    @Test
    void writesLandAtTheWrappedAddressInTheByteOrderAsked() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(64, 8);
            SlotBuffer b = new SlotBuffer();
            b.wrap(m.address() + 8, 32);
            b.putShort(0, (short) 0x1234, ByteOrder.BIG_ENDIAN);
            b.putInt(2, 0x0A0B0C0D, ByteOrder.BIG_ENDIAN);
            b.putBytes(6, new UnsafeBuffer(new byte[] {7, 8, 9}), 0, 3);
            assertEquals(0x12, m.get(ValueLayout.JAVA_BYTE, 8));
            assertEquals(0x34, m.get(ValueLayout.JAVA_BYTE, 9));
            assertEquals(0x0A, m.get(ValueLayout.JAVA_BYTE, 10));
            assertEquals(0x0D, m.get(ValueLayout.JAVA_BYTE, 13));
            assertEquals(9, m.get(ValueLayout.JAVA_BYTE, 16));
            assertEquals(0, m.get(ValueLayout.JAVA_BYTE, 7), "nothing before the slot");
            assertEquals(32, b.capacity());
            assertEquals(0x0A0B0C0D, b.getInt(2, ByteOrder.BIG_ENDIAN));
        }
    }

    @Test
    void readsStayBoundsCheckedAndOnlyOffHeapSlotsCanBeWrapped() {
        try (Arena arena = Arena.ofConfined()) {
            SlotBuffer b = new SlotBuffer();
            b.wrap(arena.allocate(16).address(), 16);
            assertThrows(IndexOutOfBoundsException.class, () -> b.getInt(14));
            assertThrows(UnsupportedOperationException.class, () -> b.wrap(new byte[8]));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.wrap(0, 16));
            assertTrue(e.getMessage().startsWith("slot:"), e.getMessage());
        }
    }
}
