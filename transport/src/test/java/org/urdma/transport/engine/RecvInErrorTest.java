package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/**
 * A receive posted to a QP already in ERR completes with WR_FLUSH_ERR (as on rxe), however long after the error: an
 * application that reposts a receive and waits for it (rping's server after the client's DREQ) learns the QP is gone.
 */
class RecvInErrorTest {
    private static final long MS = 1_000_000L;

    @Test
    void aReceivePostedLongAfterTheQpWentToErrorIsFlushed() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion buf = r.mrA(64, AccessFlags.LOCAL_WRITE);
            qp[0].modify(new QpAttributes().state(QpState.ERR), QpAttrMask.STATE);
            r.run(10 * MS); // the error and its flush pass are long over
            assertEquals(QpState.ERR, qp[0].state());
            qp[0].postRecv(new ReceiveWorkRequest().wrId(7).addSge(buf, 0, 64));
            List<WorkCompletion> wc = r.awaitA(1, 10 * MS);
            assertEquals(7, wc.get(0).wrId);
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.get(0).status);
        }
    }
}
