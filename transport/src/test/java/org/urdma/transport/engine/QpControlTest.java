package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/** A QP's state changes: ERR flushes, RESET discards, a modify past the device's limits is refused. */
class QpControlTest {
    static final long MS = ResponderHarness.MS;

    @Test
    void errFlushesEveryPostedReceiveAndResetDiscardsWithoutCompletions() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion m = r.mrB(4096, AccessFlags.ALL);
            for (int i = 0; i < 3; i++) qp[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(m, 0, 64));
            qp[1].modify(new QpAttributes().state(QpState.ERR), QpAttrMask.STATE);
            List<WorkCompletion> wcs = r.awaitB(3, MS);
            for (int i = 0; i < 3; i++) {
                assertEquals(i, wcs.get(i).wrId);
                assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(i).status);
            }
            qp[1].modify(new QpAttributes().state(QpState.RESET), QpAttrMask.STATE);
            assertEquals(QpState.RESET, qp[1].state());
            qp[1].modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(AccessFlags.ALL),
                    QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(9).addSge(m, 0, 64));
            qp[1].modify(new QpAttributes().state(QpState.RESET), QpAttrMask.STATE);
            r.run(MS);
            assertTrue(r.pendingB().isEmpty(), "RESET completes nothing");
            assertEquals(0, ((SoftQp) qp[1]).rq.posted(), "and leaves nothing queued");
        }
    }

    @Test
    void aModifyPastTheDeviceIsRefusedAndChangesNothing() {
        try (Rig r = new Rig()) {
            QueuePair q = r.pdA.createQp(MemoryFabric.init(QpType.RC, r.cqA, 16));
            MemoryFabric.Connection deep = new MemoryFabric.Connection(PathMtu.MTU_1024, 14, 7, 7, 12, 200, AccessFlags.ALL);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> MemoryFabric.bringUp(q, r.fabric.b, 0x99, 1, 1, deep));
            assertTrue(e.getMessage().startsWith("max_dest_rd_atomic: 200 exceeds device max_qp_rd_atom"), e.getMessage());
            assertEquals(QpState.INIT, q.state(), "the refused RTR left the QP where it was");
        }
    }
}
