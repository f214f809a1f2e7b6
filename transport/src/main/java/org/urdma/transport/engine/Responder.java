package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.memory.MemoryKeyTable;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.QpType;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;

/**
 * The responder: takes each request to the receiver of its transport — RC in PSN order ({@link InOrderReceiver}) or,
 * in WAN mode, placed on arrival ({@link WanReceiver}); UC and UD ({@link UcUdReceiver}) — answers READ and atomics
 * from the {@link ResponderResources}, and sends coalesced ACKs, NAKs and RNR NAKs. Every remote access is checked
 * against the rkey's region (PD, rights, bounds) before a byte moves.
 */
final class Responder {
    final SoftQp qp;
    final MemoryKeyTable keys;
    final RecvQueue recvQ;
    /** The receive WQE taken for the message in progress. */
    final TakenRecv recv;
    final ResponderResources res;
    private final InOrderReceiver inOrder;
    private final UcUdReceiver ucUd;
    /** Made the first time the QP connects in WAN mode, and kept (its loss meter and FEC timing carry over). */
    private WanReceiver wan;
    /** The RC receiver of this connection, chosen at RTR. */
    private RcReceiver rc;
    int ePsn;
    int msn;
    boolean nakSent;
    /** The sequence NAK for the gap at ePsn is owed but the link had no room: it leaves from {@link #progress}. */
    boolean nakPending;
    // coalesced ACK
    private boolean ackPending;
    private int ackPsn;
    /** Engine pass in which the pending ACK became due; it leaves from a later pass (see {@link #ackDue}). */
    private long ackPass;
    /** One-way delay (ns mod 2^32) of the newest accepted request with a timestamp, and its PSN, echoed in the AETH-EXT. */
    int owd, owdPsn;
    long acksSent;

    Responder(SoftQp qp) {
        this.qp = qp;
        this.keys = qp.device.keys();
        this.recvQ = qp.srq != null ? qp.srq.rq : qp.rq;
        this.recv = new TakenRecv(qp, recvQ);
        this.res = new ResponderResources(this, qp);
        this.inOrder = new InOrderReceiver(this, qp);
        this.ucUd = new UcUdReceiver(this, qp, inOrder);
        this.rc = inOrder;
    }

    void start(int psn) {
        ePsn = psn;
        owd = 0;
        owdPsn = Psn.add(psn, -1); // before anything arrives the AETH-EXT names no PSN the requester may still miss
        msn = 0;
        nakSent = false;
        nakPending = false;
        inOrder.start();
        recv.reset();
        ackPending = false;
        ucUd.start();
        res.start(qp.wan());
        if (qp.wan()) { // connection setup, not the data path
            if (wan == null) wan = new WanReceiver(this, qp);
            wan.start(psn);
            rc = wan;
        } else {
            rc = inOrder;
        }
    }

    /** WAN: whether a request PSN is inside the placement window: only those reach the FEC decoder. */
    boolean inWindow(int psn) {
        return rc == wan && wan != null && wan.inWindow(psn);
    }

    /** WAN: whether a P-FEC group starts within a window's size of ePsn (else its parity is forged). */
    boolean groupInWindow(int base) {
        return rc == wan && wan != null && wan.groupInWindow(base);
    }

    boolean hasPendingWork() {
        return ackPending || nakPending || res.hasResponses();
    }

    /** UC messages dropped part-way. */
    long ucDiscarded() {
        return ucUd.ucDiscarded;
    }

    // ---------------------------------------------------------------- receive

    void onRequest(RxPacket p, long now) {
        int svc = (p.opcode() & 0xE0);
        switch (qp.type) {
            case RC -> {
                if (svc != Opcode.TRANSPORT_RC) { qp.drop(Counter.DROP_BAD_OPCODE, p.psn(), now); return; }
                rc.onRequest(p, now);
            }
            case UC -> {
                if (svc != Opcode.TRANSPORT_UC) { qp.drop(Counter.DROP_BAD_OPCODE, p.psn(), now); return; }
                ucUd.onUc(p, now);
            }
            case UD -> {
                if (svc != Opcode.TRANSPORT_UD) { qp.drop(Counter.DROP_BAD_OPCODE, p.psn(), now); return; }
                ucUd.onUd(p, now);
            }
        }
    }

    /** The SACK timer (WAN mode): report what arrived and what is still missing. */
    void onSackTimer(long now) {
        rc.onSackTimer(now);
    }

    /** rxe check_length: a FIRST or MIDDLE packet carries exactly one MTU, any other at most one. */
    boolean lengthOk(int o, int len) {
        if ((OpcodeTable.flags(o) & (OpcodeTable.END | OpcodeTable.PAYLOAD)) == OpcodeTable.PAYLOAD) return len == qp.mtu;
        return len <= qp.mtu;
    }

    /** ERR: a receive taken for a message that never finished is flushed with the rest. */
    void flushTaken() {
        recv.flush();
    }

    // ---------------------------------------------------------------- ACKs and NAKs

    /**
     * Coalesced ACK: it leaves in the first engine pass after the one that received the packet, ahead of the requests
     * this QP sends in that pass. With an inline driver the application sees the receive completion between the two
     * passes, so a reply it posts at once shares the ACK's syscall (one kernel send per direction of a ping-pong
     * instead of two). Later packets join the pending ACK.
     */
    void ackDue(int psn) {
        if (!ackPending) {
            ackPending = true;
            ackPass = qp.device.passes();
        }
        ackPsn = psn;
    }

    /** Class C/D error: NAK the request, fail any receive in progress, and move the QP to ERR (as rxe). */
    void classC(int nakCode, int psn, WcStatus recvStatus, long now) {
        sendAckOrNak(Aeth.SYNDROME_NAK | nakCode, psn, now);
        if (recvStatus != null && recv.held) recv.complete(recvStatus, WcOpcode.RECV, 0, 0, 0, 0, false);
        qp.enterError(now);
    }

    /**
     * NAKs the gap at ePsn now, or, when the link has no room (a TX queue full of READ responses), from the next
     * {@link #progress}: waiting for the next out-of-sequence packet could cost the requester an ACK timeout, as
     * it sends none once its window is out.
     */
    void sequenceNak(long now) {
        nakPending = !sendAckOrNak(Aeth.SYNDROME_NAK | Aeth.NAK_PSN_SEQUENCE_ERROR, ePsn, now);
        // counted once per NAK'd gap (or new round at it), as rxe counts out_of_seq_request
        if (!nakPending) qp.counters.increment(Counter.OUT_OF_SEQ_REQUEST);
    }

    void sendRnrNak(int psn, long now) {
        sendAckOrNak(Aeth.SYNDROME_RNR_NAK | (qp.minRnrTimer & 0x1F), psn, now);
    }

    /** Sends a coalesced ACK still owed, unless READ responses or atomic ACKs must leave before it. */
    void flushOwedAck(long now) {
        if (ackPending && !res.hasResponses()) flushAck(now);
    }

    void flushAck(long now) {
        if (ackPending && sendAckOrNak(Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID, ackPsn, now)) {
            ackPending = false;
            // a full SACK-ETH: the gaps past it follow at once in up to 3 more (not one ACK delay later each)
            for (int i = 0; i < 3 && rc.moreToReport(); i++) {
                if (!sendAckOrNak(Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID, ackPsn, now)) break;
            }
        }
    }

    boolean sendAckOrNak(int syndrome, int psn, long now) {
        return rc.sendAck(syndrome, psn, now);
    }

    /** An ACK, NAK or RNR NAK left: counted and journalled by its kind. */
    void afterAck(int syndrome, int psn, long now) {
        switch (syndrome & Aeth.SYNDROME_TYPE) {
            case Aeth.SYNDROME_NAK -> {
                qp.counters.increment(Counter.NAKS_SENT);
                qp.journal.nakSent(now, qp.qpNum(), psn, syndrome);
            }
            case Aeth.SYNDROME_RNR_NAK -> {
                qp.counters.increment(Counter.SEND_RNR_ERR);
                qp.counters.increment(Counter.RNR_NAKS_SENT);
                qp.journal.rnrNakSent(now, qp.qpNum(), psn, syndrome);
            }
            case Aeth.SYNDROME_ACK -> acksSent++;
            default -> { }
        }
    }

    // ---------------------------------------------------------------- transmit

    /** Sends the coalesced ACK and READ responses / atomic ACKs; returns packets sent. */
    int progress(long now) {
        if (qp.type != QpType.RC) return 0;
        int sent = 0;
        int burst = qp.device.config().txBurst();
        if (nakPending) { // ahead of READ responses, as when it leaves at once on the out-of-sequence packet
            sequenceNak(now);
            if (nakPending) return 0;
            sent++;
        }
        sent = res.sendResponses(sent, burst, now);
        // Responses leave in PSN order: a coalesced ACK for a later request waits until the READ responses
        // and atomic ACKs before it are out, or the requester would take it as an implicit NAK of the READ.
        if (ackPending && ackPass != qp.device.passes() && !res.hasResponses()) {
            flushAck(now);
            if (!ackPending) sent++;
        }
        return sent;
    }
}
