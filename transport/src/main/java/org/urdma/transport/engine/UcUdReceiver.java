package org.urdma.transport.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.packet.Payloads;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/**
 * The unreliable receivers: UC, whose messages are placed in order as RC's but a lost packet drops the rest of its
 * message silently, and UD, whose single-packet SENDs land behind a 40-byte GRH after the Q_Key check.
 */
final class UcUdReceiver {
    private final Responder resp;
    private final SoftQp qp;
    private final TakenRecv recv;
    private final InOrderReceiver msg;
    private final UnsafeBuffer grh = new UnsafeBuffer(ByteBuffer.allocateDirect(40));
    /** UC: dropping the rest of a damaged message. */
    private boolean ucDropping;
    /** UC messages dropped part-way; UD SENDs dropped for want of a receive. */
    long ucDiscarded, udDropped;

    UcUdReceiver(Responder resp, SoftQp qp, InOrderReceiver msg) {
        this.resp = resp;
        this.qp = qp;
        this.recv = resp.recv;
        this.msg = msg;
    }

    void start() {
        ucDropping = false;
    }

    void onUc(RxPacket p, long now) {
        int o = (p.opcode() & 0x1F);
        if (p.psn() != resp.ePsn) { // a packet was lost (or repeated): drop the message in progress
            if (msg.inMessage()) {
                ucDiscarded++;
                msg.abortPartial();
            }
            if (!OpcodeTable.has(o, OpcodeTable.START)) {
                ucDropping = true;
                resp.ePsn = Psn.add(p.psn(), 1);
                return;
            }
            ucDropping = false;
            resp.ePsn = p.psn();
        }
        resp.ePsn = Psn.add(resp.ePsn, 1);
        if (ucDropping) {
            if (!OpcodeTable.has(o, OpcodeTable.START)) return;
            ucDropping = false;
        }
        if (!msg.checkOpSeq(o) || !resp.lengthOk(o, p.payloadLength())
                || !(OpcodeTable.has(o, OpcodeTable.SEND) || OpcodeTable.has(o, OpcodeTable.WRITE))) {
            if (msg.inMessage()) ucDiscarded++;
            msg.abortPartial();
            ucDropping = !OpcodeTable.has(o, OpcodeTable.END);
            return;
        }
        boolean ok = OpcodeTable.has(o, OpcodeTable.SEND) ? msg.onSend(p, o, now, false) : msg.onWrite(p, o, now, false);
        if (!ok) {
            ucDiscarded++;
            msg.abortPartial();
            ucDropping = !OpcodeTable.has(o, OpcodeTable.END);
            return;
        }
        msg.lastOp = OpcodeTable.has(o, OpcodeTable.END) ? InOrderReceiver.NO_OP : o;
    }

    void onUd(RxPacket p, long now) {
        int o = (p.opcode() & 0x1F);
        if (o != Opcode.SEND_ONLY && o != Opcode.SEND_ONLY_WITH_IMM) {
            qp.drop(Counter.DROP_BAD_OPCODE, p.psn(), now);
            return;
        }
        if (p.qkey() != qp.qkey) { // Q_Key violation: silently dropped, as the spec says
            qp.drop(Counter.DROP_QKEY, p.psn(), now);
            return;
        }
        if (!recv.held && !recv.take()) {
            udDropped++;
            return;
        }
        // 40-byte GRH space first, as verbs deliver UD receives
        writeGrh(p);
        int st = Dma.scatter(resp.keys, qp.pd, recv.addr, recv.len, recv.lkey, 0, recv.numSge, 0, Payloads.COPY, grh, 0, 40);
        if (st == Dma.OK) {
            st = Dma.scatter(resp.keys, qp.pd, recv.addr, recv.len, recv.lkey, 0, recv.numSge, 40, p.payloads(),
                    p.payload(), p.payloadOffset(), p.payloadLength());
        }
        if (st != Dma.OK) {
            recv.complete(st == Dma.LENGTH ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            return;
        }
        int flags = WorkCompletion.GRH | (o == Opcode.SEND_ONLY_WITH_IMM ? WorkCompletion.WITH_IMM : 0);
        recv.held = false;
        qp.recvCq.push(recv.wrId, WcStatus.SUCCESS, WcOpcode.RECV, 40 + p.payloadLength(), p.immData(), 0,
                qp.qpNum(), p.srcQp(), flags, p.solicited());
        qp.counters.increment(Counter.RDMA_RECVS);
    }

    /** The sender's GRH (version, traffic class, flow label, lengths, hop limit, GIDs), as verbs hand it to a UD receive. */
    private void writeGrh(RxPacket p) {
        grh.setMemory(0, 40, (byte) 0);
        grh.putByte(0, (byte) (0x60 | ((p.trafficClass() >> 4) & 0x0F)));
        grh.putByte(1, (byte) (((p.trafficClass() & 0x0F) << 4) | ((p.flowLabel() >> 16) & 0x0F)));
        grh.putShort(2, (short) p.flowLabel(), ByteOrder.BIG_ENDIAN);
        grh.putShort(4, (short) (p.payloadLength() + 12 + 8 + 4), ByteOrder.BIG_ENDIAN);
        grh.putByte(6, (byte) 0x1B);
        grh.putByte(7, (byte) p.hopLimit());
        grh.putLong(8, p.srcGidHi(), ByteOrder.BIG_ENDIAN);
        grh.putLong(16, p.srcGidLo(), ByteOrder.BIG_ENDIAN);
        grh.putLong(24, p.dstGidHi(), ByteOrder.BIG_ENDIAN);
        grh.putLong(32, p.dstGidLo(), ByteOrder.BIG_ENDIAN);
    }
}
