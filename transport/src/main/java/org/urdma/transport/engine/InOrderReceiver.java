package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.memory.MemoryKeyTable;
import org.urdma.transport.memory.RegisteredMemory;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/**
 * The DC-mode RC receiver, as rxe's responder: requests are taken strictly in PSN order through a chain of named checks
 * (check_psn, check_op_seq, check_length, check_op_valid, then the execute step's resource, rkey and DMA checks), and
 * SEND and WRITE messages are placed packet by packet into the receive or region the message's first packet named. UC
 * places its messages through the same steps, unreliably.
 */
final class InOrderReceiver implements RcReceiver {
    static final int NO_OP = -1;

    /** What {@link #checkPsn} found: the expected PSN, one past a gap, or one already taken. */
    private enum PsnState { IN_ORDER, OUT_OF_SEQUENCE, DUPLICATE }

    private final Responder resp;
    private final SoftQp qp;
    private final MemoryKeyTable keys;
    private final RecvQueue recvQ;
    private final TakenRecv recv;
    /** PSN of the last out-of-sequence request, to see the requester start a new round. */
    private int lastOutOfSequence;
    /** Opcode of the message in progress (NO_OP between messages), and the PSN it started at. */
    int lastOp = NO_OP;
    private int msgStartPsn;
    // WRITE in progress
    private RegisteredMemory writeMr;
    private long writeVa;
    private long writeRemaining;
    private long writeTotal;

    InOrderReceiver(Responder resp, SoftQp qp) {
        this.resp = resp;
        this.qp = qp;
        this.keys = resp.keys;
        this.recvQ = resp.recvQ;
        this.recv = resp.recv;
    }

    void start() {
        lastOp = NO_OP;
        writeMr = null;
    }

    boolean inMessage() {
        return lastOp != NO_OP;
    }

    // ---------------------------------------------------------------- the check chain

    @Override
    public void onRequest(RxPacket p, long now) {
        int o = (p.opcode() & 0x1F);
        if (checkPsn(p, o, now) != PsnState.IN_ORDER) return;
        if (!checkOpSeq(o) || !resp.lengthOk(o, p.payloadLength()) || !checkOpValid(o)) {
            resp.classC(Aeth.NAK_INVALID_REQUEST, p.psn(), WcStatus.REM_INV_REQ_ERR, now);
            return;
        }
        if (OpcodeTable.has(o, OpcodeTable.START)) msgStartPsn = p.psn();
        execute(p, o, now);
    }

    /** rxe check_psn: a gap is NAKed (once per round), a duplicate answered again; only the expected PSN goes on. */
    private PsnState checkPsn(RxPacket p, int o, long now) {
        int d = Psn.diff(p.psn(), resp.ePsn);
        if (d > 0) {
            // one NAK per gap; but PSNs going back mean the requester acted on it and resent, and the resent packet at
            // the gap was lost too: NAK again, or the requester learns of it only from its ACK timeout
            if (!resp.nakSent || !Psn.after(p.psn(), lastOutOfSequence)) {
                if (qp.recovery.discardsPartialMessage() && inMessage()) {
                    resp.ePsn = qp.recovery.expectedAfterGap(resp.ePsn, msgStartPsn);
                    abortPartial();
                }
                resp.nakSent = true;
                resp.sequenceNak(now);
            }
            lastOutOfSequence = p.psn();
            return PsnState.OUT_OF_SEQUENCE;
        }
        if (d < 0) {
            resp.res.duplicate(p, o, now);
            return PsnState.DUPLICATE;
        }
        resp.nakSent = false;
        resp.nakPending = false; // the requester went back on its own (timeout): the NAK owed is moot
        return PsnState.IN_ORDER;
    }

    /** rxe check_op_seq: a message's packets follow its first (FIRST, MIDDLE..., LAST), and a new one starts after an end. */
    boolean checkOpSeq(int o) {
        if (lastOp == NO_OP) return OpcodeTable.has(o, OpcodeTable.START);
        if (OpcodeTable.has(lastOp, OpcodeTable.SEND)) return OpcodeTable.has(o, OpcodeTable.SEND) && !OpcodeTable.has(o, OpcodeTable.START);
        if (OpcodeTable.has(lastOp, OpcodeTable.WRITE)) return OpcodeTable.has(o, OpcodeTable.WRITE) && !OpcodeTable.has(o, OpcodeTable.START);
        return false;
    }

    /** rxe check_op_valid: an RC responder executes SEND, WRITE, READ and the two atomics. */
    private static boolean checkOpValid(int o) {
        return OpcodeTable.has(o, OpcodeTable.SEND) || OpcodeTable.has(o, OpcodeTable.WRITE) || o == Opcode.RDMA_READ_REQUEST
                || o == Opcode.COMPARE_SWAP || o == Opcode.FETCH_ADD;
    }

    /** rxe execute: each request family with its own resource and rkey checks; a placed SEND or WRITE is acknowledged. */
    private void execute(RxPacket p, int o, long now) {
        if (OpcodeTable.has(o, OpcodeTable.SEND)) {
            if (!onSend(p, o, now, true)) return;
        } else if (OpcodeTable.has(o, OpcodeTable.WRITE)) {
            if (!onWrite(p, o, now, true)) return;
        } else if (o == Opcode.RDMA_READ_REQUEST) {
            resp.res.onRead(p, now);
            return;
        } else {
            resp.res.onAtomic(p, o, now);
            return;
        }
        acknowledge(p, o);
    }

    /** rxe acknowledge: the PSN is taken, and an AckReq makes the coalesced ACK due. */
    private void acknowledge(RxPacket p, int o) {
        resp.ePsn = Psn.add(resp.ePsn, 1);
        lastOp = OpcodeTable.has(o, OpcodeTable.END) ? NO_OP : o;
        if (p.ackReq()) resp.ackDue(p.psn());
    }

    void abortPartial() {
        lastOp = NO_OP;
        recv.offset = 0; // the claimed receive WQE is kept for the retransmitted message
        writeMr = null;
    }

    // ---------------------------------------------------------------- SEND and WRITE placement (RC and UC)

    /** SEND packet in sequence. Returns false when it was not accepted (RNR, error). */
    boolean onSend(RxPacket p, int o, long now, boolean reliable) {
        if (OpcodeTable.has(o, OpcodeTable.START)) {
            if (!recv.held) {
                if (!recv.take()) {
                    if (reliable) resp.sendRnrNak(p.psn(), now);
                    return false;
                }
            }
            recv.offset = 0;
        }
        int st = Dma.scatter(keys, qp.pd, recv.addr, recv.len, recv.lkey, 0, recv.numSge,
                recv.offset, p.payloads(), p.payload(), p.payloadOffset(), p.payloadLength());
        if (st != Dma.OK) {
            WcStatus local = st == Dma.LENGTH ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR;
            if (reliable) {
                recv.complete(local, WcOpcode.RECV, 0, 0, 0, 0, false);
                resp.classC(st == Dma.LENGTH ? Aeth.NAK_INVALID_REQUEST : Aeth.NAK_REMOTE_OPERATIONAL_ERROR, p.psn(), null, now);
            } else {
                recv.complete(local, WcOpcode.RECV, 0, 0, 0, 0, false);
                qp.enterError(now);
            }
            return false;
        }
        qp.counters.add(Counter.PLACED_BYTES, p.payloadLength());
        recv.offset += p.payloadLength();
        if (OpcodeTable.has(o, OpcodeTable.END)) {
            int flags = 0;
            int inv = 0;
            if (OpcodeTable.has(o, OpcodeTable.IMM)) flags |= WorkCompletion.WITH_IMM;
            if (OpcodeTable.has(o, OpcodeTable.INV)) {
                inv = p.invalidateRkey();
                if (!keys.invalidateRkey(inv, qp.pd)) {
                    recv.complete(WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, (int) recv.offset, 0, 0, 0, false);
                    if (reliable) resp.classC(Aeth.NAK_INVALID_REQUEST, p.psn(), null, now);
                    return false;
                }
                flags |= WorkCompletion.WITH_INV;
            }
            recv.complete(WcStatus.SUCCESS, WcOpcode.RECV, (int) recv.offset, p.immData(), inv, flags, p.solicited());
            resp.msn++;
            qp.counters.increment(Counter.RDMA_RECVS);
        }
        return true;
    }

    /** WRITE packet in sequence; false when not accepted. */
    boolean onWrite(RxPacket p, int o, long now, boolean reliable) {
        if (OpcodeTable.has(o, OpcodeTable.IMM) && !recv.held && recvQ.peek() < 0) { // need a receive for the immediate before placing anything
            if (reliable) resp.sendRnrNak(p.psn(), now);
            return false;
        }
        if (o == Opcode.RDMA_WRITE_FIRST || o == Opcode.RDMA_WRITE_ONLY || o == Opcode.RDMA_WRITE_ONLY_WITH_IMM) {
            if (!checkRkey(p, now, reliable)) return false;
        }
        int len = p.payloadLength();
        boolean end = OpcodeTable.has(o, OpcodeTable.END);
        if (writeMr == null || len > writeRemaining || (end && len != writeRemaining)) {
            if (reliable) resp.classC(Aeth.NAK_INVALID_REQUEST, p.psn(), null, now);
            return false;
        }
        if (len > 0) p.payloadTo(0, writeMr.buffer(), writeMr.offsetOf(writeVa), len);
        qp.counters.add(Counter.PLACED_BYTES, len);
        writeVa += len;
        writeRemaining -= len;
        if (end) {
            if (OpcodeTable.has(o, OpcodeTable.IMM)) {
                if (!recv.held) recv.take();
                recv.complete(WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, (int) writeTotal, p.immData(), 0,
                        WorkCompletion.WITH_IMM, p.solicited());
            }
            writeMr = null;
            resp.msn++;
        }
        return true;
    }

    /** rxe check_rkey: a WRITE's first packet names a region this QP may write, over the whole message. */
    private boolean checkRkey(RxPacket p, long now, boolean reliable) {
        RegisteredMemory mr = keys.remote(p.rethRkey(), qp.pd, qp, p.rethVa(), p.rethLength() & 0xFFFFFFFFL, AccessFlags.REMOTE_WRITE);
        if (mr == null || (qp.accessFlags & AccessFlags.REMOTE_WRITE) == 0) {
            if (reliable) resp.classC(Aeth.NAK_REMOTE_ACCESS_ERROR, p.psn(), null, now);
            return false;
        }
        writeMr = mr;
        writeVa = p.rethVa();
        writeRemaining = p.rethLength() & 0xFFFFFFFFL;
        writeTotal = writeRemaining;
        return true;
    }

    // ---------------------------------------------------------------- ACKs

    @Override
    public boolean sendAck(int syndrome, int psn, long now) {
        TxPacket t = qp.claim(Opcode.RC_ACKNOWLEDGE, 0, qp.route, now);
        if (t == null) return false;
        t.start(Opcode.RC_ACKNOWLEDGE, qp.destQpn, psn, false, false).aeth(syndrome, resp.msn & 0xFFFFFF);
        qp.telemetry.onAckWritten(t);
        qp.commit(t, qp.route, now);
        resp.afterAck(syndrome, psn, now);
        return true;
    }

    @Override
    public boolean moreToReport() {
        return false;
    }

    @Override
    public void onSackTimer(long now) {
        // DC mode arms no SACK timer
    }
}
