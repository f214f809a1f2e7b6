package org.urdma.tools.rdmacm;

import org.urdma.transport.api.UrdmaDevice;
import org.urdma.transport.cm.QpConnector;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/**
 * One connection's verbs objects as librdmacm's examples make them with rdma_create_qp: a send and a receive CQ of its
 * own and an RC QP in INIT, so receives can be posted before the CM connects it.
 */
final class ExampleQp implements AutoCloseable {
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QueuePair qp;

    /** @param depth send and receive queue depth (and each CQ's) */
    ExampleQp(UrdmaDevice device, int depth) {
        CompletionQueue s = null;
        CompletionQueue r = null;
        QueuePair q = null;
        try {
            s = device.verbs().createCq(depth, null);
            r = device.verbs().createCq(depth, null);
            q = device.pd().createQp(new QpInitAttributes().type(QpType.RC).sendCq(s).recvCq(r).maxSendWr(depth).maxRecvWr(depth)
                    .maxSendSge(1).maxRecvSge(1));
            QpConnector.toInit(q, MemoryFabric.Connection.defaults(), 0);
        } catch (RuntimeException e) {
            if (q != null) q.close();
            if (r != null) r.close();
            if (s != null) s.close();
            throw e;
        }
        this.sendCq = s;
        this.recvCq = r;
        this.qp = q;
    }

    @Override
    public void close() {
        qp.close();
        recvCq.close();
        sendCq.close();
    }
}
