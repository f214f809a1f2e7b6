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

/**
 * The responder resources (rxe's {@code resp_res}): one per READ or atomic in flight, up to max_dest_rd_atomic. A
 * READ's resource streams its responses; an atomic's keeps the original value, so a duplicate request replays the
 * stored answer instead of executing again.
 */
final class ResponderResources {
    private final Responder resp;
    private final SoftQp qp;
    private final MemoryKeyTable keys;
    private final Resource[] res;
    private int resNext;
    private long resSeq;
    /** Resources with responses to send: progress() asks on every visit, and mostly none has any. */
    private int sendingCount;
    /** A WAN requester asks again for just the packets it misses (DC: from a PSN to the READ's end). */
    private boolean partialRereads;

    private static final class Resource {
        boolean atomic;
        boolean valid;
        int psn;
        int packets;
        RegisteredMemory mr;
        long va;
        int length;
        long orig;
        boolean sending;
        /** Sending only because a duplicate request asked again: may give way to a new request. */
        boolean replay;
        int sendPsn;
        int sendOffset;
        /** Where the answer ends: the READ's length, or less when a WAN requester asked for single packets again. */
        int sendEnd;
        long seq;
    }

    ResponderResources(Responder resp, SoftQp qp) {
        this.resp = resp;
        this.qp = qp;
        this.keys = qp.device.keys();
        int n = Math.max(1, qp.device.config().maxRdAtomic());
        res = new Resource[n];
        for (int i = 0; i < n; i++) res[i] = new Resource();
    }

    /** Connection start: nothing in flight; {@code wan} says how a duplicate READ asks again. */
    void start(boolean wan) {
        for (Resource r : res) r.valid = r.sending = false;
        sendingCount = 0;
        partialRereads = wan;
    }

    boolean hasResponses() {
        return sendingCount > 0;
    }

    // ---------------------------------------------------------------- execute

    /** A READ request in order: rkey checked, a resource taken, its responses queued; ePsn passes its response PSNs. */
    void onRead(RxPacket p, long now) {
        long len = p.rethLength() & 0xFFFFFFFFL;
        RegisteredMemory mr = keys.remote(p.rethRkey(), qp.pd, qp, p.rethVa(), len, AccessFlags.REMOTE_READ);
        if (mr == null || (qp.accessFlags & AccessFlags.REMOTE_READ) == 0) {
            resp.classC(Aeth.NAK_REMOTE_ACCESS_ERROR, p.psn(), null, now);
            return;
        }
        Resource r = allocResource();
        if (r == null) {
            resp.classC(Aeth.NAK_INVALID_REQUEST, p.psn(), null, now);
            return;
        }
        resp.flushAck(now);
        int packets = (int) Math.max(1, (len + qp.mtu - 1) / qp.mtu);
        r.atomic = false;
        r.psn = p.psn();
        r.packets = packets;
        r.mr = mr;
        r.va = p.rethVa();
        r.length = (int) len;
        markSending(r);
        r.sendPsn = p.psn();
        r.sendOffset = 0;
        r.sendEnd = (int) len;
        r.seq = resSeq++;
        resp.ePsn = Psn.add(resp.ePsn, packets);
        resp.msn++;
    }

    /** An atomic in order: executed once, its original value kept for the ATOMIC ACKNOWLEDGE and any replay. */
    void onAtomic(RxPacket p, int o, long now) {
        RegisteredMemory mr = keys.remote(p.atomicRkey(), qp.pd, qp, p.atomicVa(), 8, AccessFlags.REMOTE_ATOMIC);
        if (mr == null || (qp.accessFlags & AccessFlags.REMOTE_ATOMIC) == 0) {
            resp.classC(Aeth.NAK_REMOTE_ACCESS_ERROR, p.psn(), null, now);
            return;
        }
        if ((p.atomicVa() & 7) != 0) { // IBTA: atomics need 8-byte alignment (rxe: invalid request)
            resp.classC(Aeth.NAK_INVALID_REQUEST, p.psn(), null, now);
            return;
        }
        Resource r = allocResource();
        if (r == null) {
            resp.classC(Aeth.NAK_INVALID_REQUEST, p.psn(), null, now);
            return;
        }
        int off = mr.offsetOf(p.atomicVa());
        long orig;
        if (o == Opcode.COMPARE_SWAP) {
            orig = mr.buffer().getLongVolatile(off);
            if (orig == p.atomicCompare()) mr.buffer().putLongVolatile(off, p.atomicSwapAdd());
        } else {
            orig = mr.buffer().getAndAddLong(off, p.atomicSwapAdd());
        }
        resp.flushAck(now);
        r.atomic = true;
        r.psn = p.psn();
        r.packets = 1;
        r.orig = orig;
        markSending(r); // the ATOMIC ACKNOWLEDGE goes out from progress()
        r.seq = resSeq++;
        resp.ePsn = Psn.add(resp.ePsn, 1);
        resp.msn++;
    }

    private Resource allocResource() {
        int n = Math.min(res.length, qp.maxDestRdAtomic);
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < n; i++) {
                Resource r = res[(resNext + i) % n];
                // first pass: an idle slot; second: one only replaying a duplicate (the requester resends if it needs it)
                if (!r.sending || (pass == 1 && r.replay)) {
                    resNext = (resNext + i + 1) % n;
                    r.valid = true;
                    r.replay = false;
                    return r;
                }
            }
        }
        return null; // more outstanding READ/atomics than max_dest_rd_atomic
    }

    /** A request before ePsn: a READ or atomic is answered again from its resource, anything else gets an ACK. */
    void duplicate(RxPacket p, int o, long now) {
        qp.counters.increment(Counter.DUPLICATE_REQUEST);
        if (o == Opcode.RDMA_READ_REQUEST || o == Opcode.COMPARE_SWAP || o == Opcode.FETCH_ADD) {
            for (Resource r : res) {
                if (!r.valid) continue;
                if (r.atomic && o != Opcode.RDMA_READ_REQUEST && r.psn == p.psn()) {
                    if (!r.sending) r.replay = true;
                    markSending(r); // replay the stored result, do not execute again
                    return;
                }
                if (!r.atomic && o == Opcode.RDMA_READ_REQUEST && Psn.atOrAfter(p.psn(), r.psn)
                        && Psn.before(p.psn(), Psn.add(r.psn, r.packets))) {
                    if (partialRereads && (p.rethLength() & 0xFFFFFFFFL) <= qp.mtu) {
                        // a WAN requester asks again for single packets, many at once: answer each at once rather than
                        // move the resource's one cursor (the next ask would move it again before this one was answered)
                        if (r.mr.isValid()) emitReadResponse(r, Psn.diff(p.psn(), r.psn) * qp.mtu, p.psn(), qp.mtu, now);
                        return;
                    }
                    if (!r.sending) r.replay = true;
                    markSending(r);
                    r.sendPsn = p.psn();
                    r.sendOffset = Psn.diff(p.psn(), r.psn) * qp.mtu; // keeps its place: responses go out in PSN order
                    // a WAN requester asks again for just the packets it misses
                    r.sendEnd = !partialRereads ? r.length : (int) Math.min(r.length, r.sendOffset + (p.rethLength() & 0xFFFFFFFFL));
                    return;
                }
            }
            return; // too old: the resource was reused
        }
        if (sendingCount > 0) {
            for (Resource r : res) if (r.sending && !r.atomic) return; // READ responses in flight carry the ACK
        }
        resp.ackDue(Psn.add(resp.ePsn, -1));
    }

    // ---------------------------------------------------------------- transmit

    /** Sends queued READ responses and atomic ACKs, oldest request first, while {@code sent < burst}; returns sent. */
    int sendResponses(int sent, int burst, long now) {
        while (sent < burst) {
            Resource r = nextSending();
            if (r == null) break;
            if (!sendResponse(r, now)) break;
            sent++;
        }
        return sent;
    }

    private void markSending(Resource r) {
        if (!r.sending) {
            r.sending = true;
            sendingCount++;
        }
    }

    private void unmarkSending(Resource r) {
        if (r.sending) {
            r.sending = false;
            sendingCount--;
        }
    }

    private Resource nextSending() {
        if (sendingCount == 0) return null;
        Resource best = null;
        for (Resource r : res) {
            if (r.sending && (best == null || r.seq < best.seq)) best = r;
        }
        return best;
    }

    private boolean sendResponse(Resource r, long now) {
        int syndrome = Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID;
        if (r.atomic) {
            TxPacket t = qp.claim(Opcode.RC_ATOMIC_ACKNOWLEDGE, 0, qp.route, now);
            if (t == null) return false;
            t.start(Opcode.RC_ATOMIC_ACKNOWLEDGE, qp.destQpn, r.psn, false, false, qp.uethFlags, 0).aeth(syndrome, resp.msn & 0xFFFFFF).atomicAck(r.orig);
            if ((qp.uethFlags & OpcodeTable.UETH_TS) != 0) t.ts((int) now, 0).aethExt((int) now, resp.owd, resp.owdPsn);
            qp.commit(t, qp.route, now);
            unmarkSending(r);
            return true;
        }
        if (!r.mr.isValid()) { // deregistered while answering: stop, the requester will time out
            unmarkSending(r);
            return true;
        }
        int len = Math.min(qp.mtu, r.length - r.sendOffset);
        boolean last = r.sendOffset + len >= r.length;
        boolean stop = r.sendOffset + len >= r.sendEnd;
        if (!emitReadResponse(r, r.sendOffset, r.sendPsn, r.sendEnd - r.sendOffset, now)) return false;
        r.sendOffset += len;
        r.sendPsn = Psn.add(r.sendPsn, 1);
        if (last || stop) unmarkSending(r);
        return true;
    }

    /** Sends the READ response packet of {@code r} at {@code offset} with {@code psn}; false on back-pressure. */
    private boolean emitReadResponse(Resource r, int offset, int psn, int atMost, long now) {
        int syndrome = Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID;
        int len = Math.min(Math.min(qp.mtu, atMost), r.length - offset);
        boolean first = offset == 0;
        boolean last = offset + len >= r.length;
        int opcode = first && last ? Opcode.RC_RDMA_READ_RESPONSE_ONLY : first ? Opcode.RC_RDMA_READ_RESPONSE_FIRST
                : last ? Opcode.RC_RDMA_READ_RESPONSE_LAST : Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
        TxPacket t = qp.claim(opcode, len, qp.route, now);
        if (t == null) return false;
        int flags = qp.uethFlags;
        t.start(opcode, qp.destQpn, psn, false, false, flags, 0);
        boolean aeth = (OpcodeTable.mask(opcode) & OpcodeTable.HDR_AETH) != 0; // MIDDLE has none
        if (aeth) t.aeth(syndrome, resp.msn & 0xFFFFFF);
        if ((flags & OpcodeTable.UETH_PER_PACKET_RETH) != 0) t.reth(r.va + offset, 0, r.length); // the VA of its own bytes
        if ((flags & OpcodeTable.UETH_TS) != 0) {
            t.ts((int) now, 0);
            if (aeth) t.aethExt((int) now, resp.owd, resp.owdPsn);
        }
        t.payload(r.mr.buffer(), r.mr.offsetOf(r.va + offset), len);
        qp.commit(t, qp.route, now);
        return true;
    }
}
