package org.urdma.transport.engine;

import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.IntStack;
import org.urdma.verbs.QpType;

/**
 * A QP's in-band telemetry (HPCC): its requests carry an empty INT stack when the rate control wants telemetry, the
 * responder keeps the stack the last request brought and echoes it in its next ACK, and an echo that comes back goes to
 * the rate control with the ACK's PSN and the next PSN to be sent (HPCC's {@code ack.seq} and {@code snd_nxt}).
 */
final class IntFeedback {
    private final SoftQp qp;
    /** The last stack a request brought, to go back in the next ACK. */
    private final UnsafeBuffer echo = new UnsafeBuffer(new byte[IntStack.LENGTH]);
    /** A request brought one (ACKs then have room for the echo); one waits for the next ACK. */
    private boolean echoing, echoDue;

    IntFeedback(SoftQp qp) {
        this.qp = qp;
    }

    /** Requests of this QP carry an INT stack: RC and a rate control that reads one. */
    boolean requested() {
        return qp.type == QpType.RC && qp.rate.wantsTelemetry();
    }

    /** Bytes a claim adds so the slot holds the stack (a request's or an ACK's echo). */
    int claimExtra() {
        return requested() || echoing ? IntStack.LENGTH : 0;
    }

    /** A request {@code t} is written: it asks the switches on the way for their stamps. */
    void onRequestWritten(TxPacket t) {
        if (requested()) t.intStack();
    }

    /** A request arrived: its stamped stack, if any, waits for the next ACK. */
    void onRequest(RxPacket p) {
        int at = p.intOffset();
        if (at < 0 || IntStack.echo(p.frameBuffer(), at)) return;
        echo.putBytes(0, p.frameBuffer(), at, IntStack.LENGTH);
        echoing = true;
        echoDue = true;
    }

    /** An ACK {@code t} is written: it carries the stack the requests brought since the last one. */
    void onAckWritten(TxPacket t) {
        if (!echoDue) return;
        t.intEcho(echo, 0);
        echoDue = false;
    }

    /** A response arrived: an echoed stack goes to the rate control. */
    void onResponse(RxPacket p, long now) {
        int at = p.intOffset();
        if (at < 0 || !IntStack.echo(p.frameBuffer(), at) || !qp.rate.wantsTelemetry()) return;
        qp.rate.onTelemetry(p.frameBuffer(), at, p.psn(), qp.requester.firstUnassignedPsn, now);
    }
}
