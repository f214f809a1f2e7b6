package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.QueuePair;

/** QP numbers handed out and looked up, through the last-QP cache. */
class QpTableTest {
    @Test
    void numbersSkipThoseTakenAndAFixedNumberMustBeFree() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            SoftQp a = (SoftQp) qp[0];
            QpTable t = new QpTable(new SplittableRandom(1));
            t.put(a);
            assertThrows(IllegalStateException.class, () -> t.newQpn(a.qpNum(), "a"), "a fixed number in use");
            assertEquals(1, t.newQpn(1, "a"), "a free fixed number is given");
            for (int i = 0; i < 100; i++) {
                int n = t.newQpn(0, "a");
                assertTrue(n >= 2, "QP0 and QP1 are never handed out");
                assertNotEquals(a.qpNum(), n, "a number in use is skipped");
            }
        }
    }

    @Test
    void aLookupAfterRemoveFindsNothingEvenThroughTheCache() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            SoftQp a = (SoftQp) qp[0], b = (SoftQp) qp[1];
            QpTable t = new QpTable(new SplittableRandom(1));
            t.put(a);
            t.put(b);
            assertSame(a, t.lookup(a.qpNum()));
            assertSame(a, t.lookup(a.qpNum()), "again, from the cache");
            assertSame(b, t.lookup(b.qpNum()));
            assertNull(t.lookup(0x777777));
            assertTrue(t.remove(b));
            assertNull(t.lookup(b.qpNum()), "the cache forgot it");
            assertFalse(t.remove(b), "not there any more");
            assertEquals(1, t.size());
        }
    }
}
