package org.urdma.tools.rdmacm;

import java.io.PrintStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.urdma.transport.api.MulticastJoin;
import org.urdma.transport.api.RdmaCm;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.CompletionQueue;
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
 * librdmacm's mckey over urdma, one node (mckey's -c makes several): a UD QP with Q_Key RDMA_UDP_QKEY joins the
 * group. A receiver posts {@code count} receives before it joins and then takes {@code count} messages; a sender
 * SENDs {@code count} messages of {@code size} bytes with its QPN as immediate data to DestQP 0xFFFFFF. urdma checks
 * each receive (stock mckey only counts them): success, the 40-byte GRH and {@code size} bytes, immediate = source QPN.
 */
final class Mckey implements AutoCloseable {
    private static final int GRH = 40;

    private final UrdmaDevice device;
    private final int count;
    private final int size;
    private final PrintStream out;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemoryRegion mem;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private MulticastJoin join;

    Mckey(UrdmaDevice device, int count, int size, PrintStream out) {
        int mtu = device.mtu().bytes();
        if (size > mtu) throw new IllegalArgumentException("-S: message_size " + size + " is larger than active mtu " + mtu);
        this.device = device;
        this.count = count;
        this.size = size;
        this.out = out;
        this.cq = device.verbs().createCq(2 * count + 2, null);
        this.qp = device.pd().createQp(new QpInitAttributes().type(QpType.UD).sendCq(cq).recvCq(cq)
                .maxSendWr(count).maxRecvWr(count).maxSendSge(1).maxRecvSge(1));
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).qkey(RdmaCm.UDP_QKEY),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
        qp.modify(new QpAttributes().state(QpState.RTR), QpAttrMask.STATE);
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(0), QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        this.mem = device.register((long) count * (size + GRH), AccessFlags.LOCAL_WRITE);
    }

    /** Joins {@code group}; a receiver posts its receives first, as mckey's addr_handler does. */
    void join(String group, boolean sender) {
        if (!sender) {
            for (int i = 0; i < count; i++) {
                qp.postRecv(new ReceiveWorkRequest().wrId(i).addSge(mem, (long) i * (size + GRH), size + GRH));
            }
        }
        join = device.rdmaCm().joinMulticast(group, qp);
        out.printf("mckey: joined dgid: %s mlid 0x0 sl 0%n", text(join.mgid().toBytes()));
    }

    /** Sends every message (each signalled, so the send queue of {@code count} entries is retired before leaving). */
    void send(Duration timeout) {
        for (int i = 0; i < size; i++) mem.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) ('a' + i % 26));
        try (AddressHandle ah = device.pd().createAh(join.ah())) {
            for (int i = 0; i < count; i++) {
                qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED)
                        .immData(qp.qpNum()).addSge(mem, 0, size).ud(ah, join.qpn(), join.qkey()));
            }
            for (int i = 0; i < count; i++) next(WcOpcode.SEND, "send " + i, timeout);
        }
    }

    /** Takes every message; returns how many arrived. */
    int receive(Duration timeout) {
        for (int i = 0; i < count; i++) {
            WorkCompletion w = next(WcOpcode.RECV, "message " + i, timeout);
            if (w.byteLen() != size + GRH) {
                throw new IllegalStateException("mckey: message " + i + " of " + w.byteLen() + " bytes, expected " + (size + GRH));
            }
            if (!w.hasImm() || w.immData() != w.srcQp()) {
                throw new IllegalStateException("mckey: message " + i + ": immediate data is not the sender's QPN 0x" + Integer.toHexString(w.srcQp()));
            }
        }
        return count;
    }

    private WorkCompletion next(WcOpcode op, String what, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            while (cq.poll(wc) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("mckey: " + what + ": nothing within " + timeout.toSeconds() + " s");
                }
                LockSupport.parkNanos(20_000);
            }
            if (wc[0].status() != WcStatus.SUCCESS) throw new IllegalStateException("mckey: " + what + ": " + wc[0].status());
            if (wc[0].opcode() == op) return wc[0];
        }
    }

    /** The MGID as mckey prints it (inet_ntop AF_INET6). */
    static String text(byte[] gid) {
        try {
            return ((Inet6Address) InetAddress.getByAddress(gid)).getHostAddress();
        } catch (UnknownHostException | ClassCastException e) {
            // a 16-byte IPv4-mapped address comes back as Inet4Address: print it as inet_ntop does
            return "::ffff:" + (gid[12] & 0xFF) + "." + (gid[13] & 0xFF) + "." + (gid[14] & 0xFF) + "." + (gid[15] & 0xFF);
        }
    }

    @Override
    public void close() {
        if (join != null) join.leave();
        qp.close();
        cq.close();
    }
}
