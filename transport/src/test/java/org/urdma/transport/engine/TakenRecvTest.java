package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpType;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/** The receive WQE a responder holds for the message in progress. */
class TakenRecvTest {
    static final long MS = ResponderHarness.MS;

    @Test
    void takingDequeuesTheOldestReceiveWithItsScatterList() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            h.postRecv(7, mr, 100, 200);
            h.postRecv(8, mr, 300, 50);
            TakenRecv t = new TakenRecv(h.qb, h.qb.rq);
            assertTrue(t.take());
            assertTrue(t.held);
            assertEquals(7, t.wrId);
            assertEquals(1, t.numSge);
            assertEquals(mr.address() + 100, t.addr[0]);
            assertEquals(200, t.len[0]);
            assertEquals(mr.lkey(), t.lkey[0]);
            assertEquals(1, h.qb.rq.posted(), "dequeued at once");
            t.offset = 64;
            t.complete(WcStatus.SUCCESS, WcOpcode.RECV, 64, 0, 0, 0, false);
            assertFalse(t.held);
            assertEquals(0, t.offset);
            t.complete(WcStatus.SUCCESS, WcOpcode.RECV, 1, 0, 0, 0, false); // none held: nothing
            List<WorkCompletion> wcs = h.rig.awaitB(1, MS);
            assertEquals(7, wcs.get(0).wrId);
            assertEquals(64, wcs.get(0).byteLen);
            h.rig.run(MS);
            assertTrue(h.rig.pendingB().isEmpty(), "completing with none held adds nothing");
            assertTrue(t.take());
            assertEquals(8, t.wrId);
            assertFalse(t.take(), "no receive left");
            assertTrue(t.held, "a failed take keeps the one held");
        }
    }

    @Test
    void aFlushCompletesTheHeldReceiveWithWrFlushErr() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            MemoryRegion mr = h.rig.mrB(4096, AccessFlags.ALL);
            h.postRecv(3, mr, 0, 64);
            TakenRecv t = new TakenRecv(h.qb, h.qb.rq);
            t.flush();
            h.rig.run(MS);
            assertTrue(h.rig.pendingB().isEmpty(), "nothing held: nothing flushed");
            assertTrue(t.take());
            t.flush();
            List<WorkCompletion> wcs = h.rig.awaitB(1, MS);
            assertEquals(3, wcs.get(0).wrId);
            assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(0).status);
            assertFalse(t.held);
        }
    }
}
