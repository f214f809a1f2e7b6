package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.Opcode;
import org.urdma.verbs.QpType;

/**
 * One QP's notification point (DCQCN's NP; WIRE.md §7): a request that arrives CE-marked makes the QP send a CNP to
 * the sending QP, at most one per {@link CnpConfig#intervalNanos()}. RC and UC send it to the connected peer; UD has no
 * peer, so the CNP goes to the source QP (DETH) and address (source MAC and GID) of the CE packet that triggered it,
 * with the interval still kept per local QP (one CNP per interval whichever sender was marked). The CNP leaves at once;
 * when the link pushes back it stays pending and leaves from the QP's next progress. It is no response: the requester
 * routes it by opcode, so it has no place in the responder's PSN-ordered ACK stream and cannot reorder it.
 */
final class CnpSender {
    private final SoftQp qp;
    private final long interval;
    /** UD: where the pending CNP goes. */
    private final Route udRoute = new Route();
    private boolean pending;
    private int pendingQp;
    private boolean sentAny;
    private long lastSent;
    long ceReceived;
    long cnpsSent;

    CnpSender(SoftQp qp) {
        this.qp = qp;
        this.interval = qp.device.config().cnp().intervalNanos();
    }

    /** A request arrived with ECN CE. */
    void onCe(RxPacket p, long now) {
        ceReceived++;
        qp.counters.increment(Counter.ECN_CE_RCVD); // the QP's row and the device total
        if (pending || (sentAny && now - lastSent < interval)) return;
        pending = true;
        if (qp.type == QpType.UD) {
            pendingQp = p.srcQp();
            udRoute.set(p.srcMac(), p.srcGidHi(), p.srcGidLo());
        } else {
            pendingQp = qp.destQpn;
        }
        send(now);
    }

    boolean hasPendingWork() {
        return pending;
    }

    /** Sends a CNP still pending; returns packets sent. */
    int progress(long now) {
        return pending && send(now) ? 1 : 0;
    }

    private boolean send(long now) {
        Route to = qp.type == QpType.UD ? udRoute : qp.route;
        TxPacket t = qp.claim(Opcode.CNP, 0, to, now);
        if (t == null) return false;
        t.start(Opcode.CNP, pendingQp, 0, false, false).cnp();
        qp.commit(t, to, now);
        pending = false;
        sentAny = true;
        lastSent = now;
        cnpsSent++;
        qp.counters.increment(Counter.CNP_SENT);
        qp.journal.cnpSent(now, qp.qpNum(), 0);
        return true;
    }
}
