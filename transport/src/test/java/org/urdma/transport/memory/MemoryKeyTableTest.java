package org.urdma.transport.memory;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.ProtectionDomain;

class MemoryKeyTableTest {
    /** A PD is only compared by identity here. */
    private static ProtectionDomain pd() {
        return (ProtectionDomain) java.lang.reflect.Proxy.newProxyInstance(MemoryKeyTableTest.class.getClassLoader(),
                new Class<?>[] {ProtectionDomain.class}, (proxy, m, args) -> m.getName().equals("equals") ? proxy == args[0] : null);
    }

    @Test
    void localLookupsAlternatingBetweenRegionsFindEachAndStillCheckEveryAccess() {
        MemoryKeyTable t = new MemoryKeyTable(RandomGenerator.of("L64X128MixRandom"), 16);
        ProtectionDomain pd = pd(), other = pd();
        try (Arena arena = Arena.ofConfined()) {
            RegisteredMemory a = t.register(pd, arena.allocate(64), AccessFlags.LOCAL_WRITE);
            RegisteredMemory b = t.register(pd, arena.allocate(64), AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) {
                assertSame(a, t.local(a.lkey(), pd, a.address(), 64, AccessFlags.LOCAL_WRITE));
                assertSame(a, t.local(a.lkey(), pd, a.address() + 8, 8, AccessFlags.LOCAL_WRITE), "again: the same region");
                assertSame(b, t.local(b.lkey(), pd, b.address(), 64, AccessFlags.LOCAL_WRITE));
            }
            // the region found last is still checked in full
            assertNull(t.local(b.lkey(), other, b.address(), 8, AccessFlags.LOCAL_WRITE));
            assertEquals(MemoryKeyTable.WRONG_PD, t.lastFailure());
            assertNull(t.local(b.lkey(), pd, b.address(), 65, AccessFlags.LOCAL_WRITE));
            assertEquals(MemoryKeyTable.OUT_OF_BOUNDS, t.lastFailure());
            assertNull(t.local(b.lkey() ^ 1, pd, b.address(), 8, AccessFlags.LOCAL_WRITE));
            assertEquals(MemoryKeyTable.BAD_KEY, t.lastFailure());
            // deregistered while it was the last found: its key works no more, the other region's does
            b.deregister();
            assertNull(t.local(b.lkey(), pd, b.address(), 8, AccessFlags.LOCAL_WRITE));
            assertEquals(MemoryKeyTable.BAD_KEY, t.lastFailure());
            assertSame(a, t.local(a.lkey(), pd, a.address(), 8, AccessFlags.LOCAL_WRITE));
        }
    }
}
