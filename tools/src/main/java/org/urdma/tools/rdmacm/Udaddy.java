package org.urdma.tools.rdmacm;

import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.urdma.transport.api.RdmaCm;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.Gid;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * librdmacm's udaddy over urdma: UD through SIDR on RDMA_PS_UDP. The client's SIDR_REQ is answered with the server's UD
 * QP and Q_Key 0x01234567; the client SENDs {@code count} messages of {@code size} bytes with its QPN as immediate data,
 * the server answers each (its reply address from the first message's GRH and immediate data). Each side checks every
 * receive: success, {@code size} bytes after the 40-byte GRH, the peer's QPN as immediate data.
 */
final class Udaddy implements AutoCloseable {
    private static final int GRH = 40;

    private final UrdmaDevice device;
    private final int count;
    private final int size;
    private final Duration timeout;
    private final PrintStream out;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemoryRegion recv;
    private final MemoryRegion send;
    private final WorkCompletion[] wc = {new WorkCompletion()};

    Udaddy(UrdmaDevice device, int count, int size, Duration timeout, PrintStream out) {
        this.device = device;
        this.count = count;
        this.size = size;
        this.timeout = timeout;
        this.out = out;
        this.cq = device.verbs().createCq(4 * count + 8, null);
        this.qp = device.pd().createQp(new QpInitAttributes().type(QpType.UD).sendCq(cq).recvCq(cq)
                .maxSendWr(count + 4).maxRecvWr(count + 4).maxSendSge(1).maxRecvSge(1));
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).qkey(RdmaCm.UDP_QKEY),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
        qp.modify(new QpAttributes().state(QpState.RTR), QpAttrMask.STATE);
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(0), QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        this.recv = device.register((long) count * (size + GRH), AccessFlags.LOCAL_WRITE);
        this.send = device.register(size, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < size; i++) send.segment().set(ValueLayout.JAVA_BYTE, i, (byte) ('a' + i % 26));
        for (int i = 0; i < count; i++) {
            qp.postRecv(new ReceiveWorkRequest().wrId(i).addSge(recv, (long) i * (size + GRH), size + GRH));
        }
    }

    /** Server: serves one client on {@code port}; returns the messages received. */
    int server(int port) {
        RdmaCm cm = device.rdmaCm();
        try (AutoCloseable l = cm.sidrListen(port, qp)) {
            out.println("udaddy: listening on port " + port);
            int peerQpn = -1;
            Gid peerGid = null;
            for (int i = 0; i < count; i++) {
                WorkCompletion w = next(WcOpcode.RECV, "message " + i);
                int q = check(w, i);
                if (peerQpn < 0) {
                    peerQpn = q;
                    byte[] sgid = new byte[16]; // the GRH's SGID: where to reply (ibv_create_ah_from_wc)
                    for (int b = 0; b < 16; b++) sgid[b] = recv.segment().get(ValueLayout.JAVA_BYTE, w.wrId() * (size + GRH) + 8 + b);
                    peerGid = Gid.of(sgid);
                }
            }
            byte[] mac = cm.macOf(peerGid);
            if (mac == null) throw new IllegalStateException("udaddy: no MAC for the client " + peerGid);
            sendAll(peerGid, mac, peerQpn, RdmaCm.UDP_QKEY);
            out.printf("udaddy: received %d messages of %d bytes from QPN 0x%x, sent %d replies%n", count, size, peerQpn, count);
            return count;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Client: resolves the server's UD QP through SIDR, sends, receives the replies; returns the replies received. */
    int client(String address, int port) {
        RdmaCm.UdTarget t = device.rdmaCm().sidrResolve(address, port, timeout);
        out.printf("udaddy: SIDR_REP: QPN 0x%x, Q_Key 0x%08x%n", t.qpn(), t.qkey());
        sendAll(t.gid(), t.mac(), t.qpn(), t.qkey());
        for (int i = 0; i < count; i++) {
            int q = check(next(WcOpcode.RECV, "reply " + i), i);
            if (q != t.qpn()) throw new IllegalStateException("udaddy: reply " + i + " from QPN 0x" + Integer.toHexString(q) + ", not the server's");
        }
        out.printf("udaddy: sent %d messages of %d bytes to QPN 0x%x, received %d replies%n", count, size, t.qpn(), count);
        return count;
    }

    private void sendAll(Gid gid, byte[] mac, int qpn, int qkey) {
        try (AddressHandle ah = device.pd().createAh(new AddressHandleAttributes().dgid(gid).dmac(mac).hopLimit(64))) {
            for (int i = 0; i < count; i++) {
                qp.postSend(new SendWorkRequest().wrId(1000 + i).opcode(WrOpcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED)
                        .immData(qp.qpNum()).addSge(send, 0, size).ud(ah, qpn, qkey));
                next(WcOpcode.SEND, "send " + i); // one at a time: a UD send outrunning the peer's receives is lost
            }
        }
    }

    /** A message: success, the GRH and {@code size} bytes, the sender's QPN as immediate data (big-endian on the wire, as udaddy's htobe32). */
    private int check(WorkCompletion w, int i) {
        if (w.byteLen() != size + GRH) throw new IllegalStateException("udaddy: message " + i + " of " + w.byteLen() + " bytes, expected " + (size + GRH));
        if (!w.hasImm()) throw new IllegalStateException("udaddy: message " + i + " without immediate data");
        int q = w.immData();
        if (q != w.srcQp()) throw new IllegalStateException("udaddy: message " + i + ": immediate 0x" + Integer.toHexString(q) + " is not its source QPN 0x" + Integer.toHexString(w.srcQp()));
        return q;
    }

    private WorkCompletion next(WcOpcode op, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            while (cq.poll(wc) == 0) {
                if (System.nanoTime() - deadline > 0) throw new IllegalStateException("udaddy: " + what + ": nothing within " + timeout.toSeconds() + " s");
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
            if (wc[0].status() != WcStatus.SUCCESS) throw new IllegalStateException("udaddy: " + what + ": " + wc[0].status());
            if (wc[0].opcode() == op) return wc[0];
        }
    }

    @Override
    public void close() {
        qp.close();
        cq.close();
    }
}
