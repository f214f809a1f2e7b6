package org.urdma.transport.gsi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.Gid;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * QP1 of a urdma port and the MADs through it: a UD QP with Q_Key 0x80010000 whose receives (GRH + 256-byte MAD) go to
 * a {@link CmAgent} and whose sends carry the agent's MADs to a peer's QP1. Verbs only, like the kernel's MAD layer on
 * rxe; whoever owns it calls {@link #poll} (one thread, the same one that calls the agent).
 */
public final class Gsi implements CmAgent.Transport, AutoCloseable {
    /** As deep as the kernel's MAD layer (mad_recvq_size): a burst of REQs (cmtime's hundred) must not outrun it. */
    static final int RECV_SLOTS = 512;
    /** The kernel's mad_sendq_size. */
    static final int SEND_SLOTS = 128;
    static final int RECV_SLOT = 40 + Mad.SIZE;

    private final QueuePair qp;
    private final CompletionQueue cq;
    private final ProtectionDomain pd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment recvMem;
    private final MemorySegment sendMem;
    private final MemoryRegion recvMr;
    private final MemoryRegion sendMr;
    private final UnsafeBuffer recvView;
    private final UnsafeBuffer sendView;
    private final Function<byte[], byte[]> macOf;
    private final Map<String, AddressHandle> ahs = new HashMap<>();
    private final WorkCompletion[] wcs = new WorkCompletion[16];
    private final ReceiveWorkRequest rwr = new ReceiveWorkRequest();
    private final SendWorkRequest swr = new SendWorkRequest();
    private final boolean[] sendBusy = new boolean[SEND_SLOTS];
    private CmAgent agent;
    private long sendsDropped;
    private long unresolved;

    /**
     * @param macOf the MAC of a peer GID (ARP for an IPv4-mapped GID, EUI-64 for a link-local one), or null if unknown
     */
    public Gsi(SoftDevice device, ProtectionDomain pd, Function<byte[], byte[]> macOf) {
        this.pd = pd;
        this.macOf = macOf;
        this.cq = device.createCq(RECV_SLOTS + SEND_SLOTS, null);
        this.qp = device.createGsiQp(pd, new QpInitAttributes().type(QpType.UD).sendCq(cq).recvCq(cq)
                .maxSendWr(SEND_SLOTS).maxRecvWr(RECV_SLOTS).maxSendSge(1).maxRecvSge(1));
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).qkey(Mad.GSI_QKEY),
                QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
        qp.modify(new QpAttributes().state(QpState.RTR), QpAttrMask.STATE);
        qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(0), QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        recvMem = arena.allocate((long) RECV_SLOTS * RECV_SLOT, 4096);
        sendMem = arena.allocate((long) SEND_SLOTS * Mad.SIZE, 4096);
        recvMr = pd.registerMemory(recvMem, AccessFlags.LOCAL_WRITE);
        sendMr = pd.registerMemory(sendMem, AccessFlags.LOCAL_WRITE);
        recvView = new UnsafeBuffer(recvMem.address(), (int) recvMem.byteSize());
        sendView = new UnsafeBuffer(sendMem.address(), (int) sendMem.byteSize());
        for (int i = 0; i < 16; i++) wcs[i] = new WorkCompletion();
        for (int i = 0; i < RECV_SLOTS; i++) postRecv(i);
    }

    /** Where received MADs go (set once, before the first poll). */
    public void agent(CmAgent a) {
        this.agent = a;
    }

    public QueuePair qp() {
        return qp;
    }

    private void postRecv(int slot) {
        qp.postRecv(rwr.reset().wrId(slot).addSge(recvMr, (long) slot * RECV_SLOT, RECV_SLOT));
    }

    /** Takes completed receives to the agent and frees completed sends; returns completions handled. */
    public int poll(long now) {
        int n = cq.poll(wcs);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            int slot = (int) (wc.wrId & 0xFFFF);
            if (wc.opcode() == org.urdma.verbs.WcOpcode.RECV) {
                if (wc.status() == WcStatus.SUCCESS && wc.byteLen() >= 40 + Mad.SIZE && agent != null) {
                    int base = slot * RECV_SLOT;
                    byte[] gid = new byte[16];
                    recvView.getBytes(base + 8, gid);
                    byte[] mac = macOf.apply(gid);
                    if (mac == null) {
                        unresolved++;
                    } else {
                        agent.onMad(recvView, base + 40, Mad.SIZE, new CmPeer(gid, mac, wc.srcQp()), now);
                    }
                }
                postRecv(slot);
            } else {
                sendBusy[slot] = false;
            }
        }
        return n;
    }

    @Override
    public void send(DirectBuffer mad, int offset, CmPeer to) {
        int slot = -1;
        for (int i = 0; i < SEND_SLOTS; i++) {
            if (!sendBusy[i]) {
                slot = i;
                break;
            }
        }
        byte[] mac = to.mac() != null ? to.mac() : macOf.apply(to.gid());
        if (slot < 0 || mac == null) { // the CM's retries cover a MAD that could not leave
            sendsDropped++;
            return;
        }
        sendBusy[slot] = true;
        sendView.putBytes(slot * Mad.SIZE, mad, offset, Mad.SIZE);
        AddressHandle ah = ahs.computeIfAbsent(Arrays.toString(to.gid()) + Arrays.toString(mac),
                k -> pd.createAh(new AddressHandleAttributes().dgid(Gid.of(to.gid())).dmac(mac).hopLimit(64)));
        qp.postSend(swr.reset().wrId(slot).opcode(WrOpcode.SEND).flags(org.urdma.verbs.SendFlags.SIGNALED)
                .addSge(sendMr, (long) slot * Mad.SIZE, Mad.SIZE).ud(ah, to.qpn(), Mad.GSI_QKEY));
    }

    /** MADs not sent (no free slot or no MAC for the peer) and received from a peer whose MAC was not found. */
    public long sendsDropped() {
        return sendsDropped;
    }

    public long unresolved() {
        return unresolved;
    }

    @Override
    public void close() {
        qp.close();
        for (AddressHandle ah : ahs.values()) ah.close();
        recvMr.close();
        sendMr.close();
        cq.close();
        arena.close();
    }
}
