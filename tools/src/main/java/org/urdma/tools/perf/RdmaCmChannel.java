package org.urdma.tools.perf;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.urdma.transport.api.RdmaCm;
import org.urdma.transport.api.RdmaCmListener;
import org.urdma.transport.api.RdmaConnectException;
import org.urdma.transport.cm.ConnectionException;
import org.urdma.transport.cm.QpConnector;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.gsi.CmId;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.Device;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
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
 * perftest's exchange channel under -R (create_comm_struct with use_rdma_cm): an RC QP of its own, connected through
 * rdma_cm on the exchange port before anything else, over which every step is one SEND each way (rdma_write_data /
 * rdma_read_data). As streams for {@link org.urdma.transport.cm.perftest.PerftestExchange}: a write is one message, a
 * {@code readNBytes(n)} takes the next message whole and returns its first n bytes.
 */
final class RdmaCmChannel implements AutoCloseable {
    private static final int SLOTS = 16;
    private static final int SLOT = 256;

    private final RdmaCm cm;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment mem;
    private final MemoryRegion mr;
    private Duration timeout;
    private final WorkCompletion[] wc = {new WorkCompletion()};
    private CmId id;

    private RdmaCmChannel(Device device, ProtectionDomain pd, RdmaCm cm, Duration timeout) {
        this.cm = cm;
        this.timeout = timeout;
        this.cq = device.createCq(4 * SLOTS, null);
        this.qp = pd.createQp(MemoryFabric.init(QpType.RC, cq, SLOTS));
        this.mem = arena.allocate((long) (SLOTS + 1) * SLOT, 4096);
        this.mr = pd.registerMemory(mem, AccessFlags.LOCAL_WRITE);
        QpConnector.toInit(qp, MemoryFabric.Connection.defaults(), 0x11111111);
        for (int i = 0; i < SLOTS; i++) postRecv(i); // before the CM moves it: the peer may send on its ESTABLISHED
    }

    /**
     * Server: waits for the channel's REQ on {@code port} and accepts it; client: connects, retrying a REJ (the server
     * may not listen yet) as perftest's rdma_client_connect does.
     */
    static RdmaCmChannel open(Device device, ProtectionDomain pd, RdmaCm cm, String peer, int port, int mtuBytes,
                              Duration timeout) {
        RdmaCmChannel c = new RdmaCmChannel(device, pd, cm, timeout);
        try {
            if (peer == null) {
                try (RdmaCmListener l = cm.listen(port)) {
                    c.id = l.nextRequest(Duration.ofSeconds(Math.max(timeout.toSeconds(), 60)));
                    cm.acceptQp(c.id, c.qp, mtuBytes, 1, new byte[0], timeout);
                }
            } else {
                c.id = connectWithRetry(cm, peer, port, c.qp, mtuBytes, 1, timeout);
            }
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** rdma_cm_client_connection's tries: a server that listens a moment later rejects the first REQs. */
    static final int TRIES = 10;

    /** Connects {@code q}, trying again 100 ms after a REJ up to {@link #TRIES} times (perftest's retry_rdma_connect). */
    static CmId connectWithRetry(RdmaCm cm, String peer, int port, QueuePair q, int mtuBytes, int rdAtomic, Duration timeout) {
        RdmaConnectException last = null;
        for (int t = 0; t < TRIES; t++) {
            try {
                return cm.connectQp(peer, port, q, mtuBytes, rdAtomic, new byte[0], timeout);
            } catch (RdmaConnectException e) {
                last = e;
                if (!e.getMessage().contains("REJ reason")) throw e; // no answer at all: trying again would not help
                if (q.state() != org.urdma.verbs.QpState.INIT) { // the REJ moved it to ERROR: back to INIT
                    q.modify(new org.urdma.verbs.QpAttributes().state(org.urdma.verbs.QpState.RESET), org.urdma.verbs.QpAttrMask.STATE);
                    QpConnector.toInit(q, MemoryFabric.Connection.defaults(), 0x11111111);
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
        throw new ConnectionException("rdma_cm: connect to " + peer + ":" + port + " refused " + TRIES + " times: " + last.getMessage(), last);
    }

    /** How long a read waits for the peer's next message (a barrier waits out the peer's run). */
    void timeout(Duration d) {
        this.timeout = d;
    }

    private void postRecv(int slot) {
        qp.postRecv(new ReceiveWorkRequest().wrId(slot).addSge(mr, (long) slot * SLOT, SLOT));
    }

    private WorkCompletion next(String what) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new SocketTimeoutException("rdma_cm exchange: nothing within " + timeout.toMillis() + " ms (" + what + ")");
            }
            Thread.onSpinWait();
        }
        if (wc[0].status() != WcStatus.SUCCESS) throw new IOException("rdma_cm exchange: " + what + " completed " + wc[0].status());
        return wc[0];
    }

    /** One message out; waits for its completion, as rdma_write_data does. Receives completing meanwhile are kept. */
    private void send(byte[] b, int off, int len) throws IOException {
        if (len > SLOT) throw new IOException("rdma_cm exchange: a " + len + "-byte message is longer than " + SLOT);
        long base = (long) SLOTS * SLOT;
        MemorySegment.copy(b, off, mem, ValueLayout.JAVA_BYTE, base, len);
        qp.postSend(new SendWorkRequest().wrId(SLOTS).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(mr, base, len));
        while (true) {
            WorkCompletion w = next("send");
            if (w.opcode() == WcOpcode.RECV) {
                pending[pendingCount++] = copyOut(w);
            } else {
                return;
            }
        }
    }

    private final byte[][] pending = new byte[SLOTS][];
    private int pendingCount;

    private byte[] copyOut(WorkCompletion w) {
        int slot = (int) w.wrId;
        byte[] m = new byte[w.byteLen()];
        MemorySegment.copy(mem, ValueLayout.JAVA_BYTE, (long) slot * SLOT, m, 0, m.length);
        postRecv(slot);
        return m;
    }

    private byte[] receive() throws IOException {
        if (pendingCount > 0) {
            byte[] m = pending[0];
            System.arraycopy(pending, 1, pending, 0, --pendingCount);
            return m;
        }
        while (true) {
            WorkCompletion w = next("receive");
            if (w.opcode() == WcOpcode.RECV) return copyOut(w);
        }
    }

    InputStream in() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("rdma_cm exchange: messages are read whole");
            }

            @Override
            public byte[] readNBytes(int n) throws IOException {
                byte[] m = receive();
                byte[] r = new byte[n];
                System.arraycopy(m, 0, r, 0, Math.min(n, m.length));
                return r;
            }
        };
    }

    OutputStream out() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                send(b, off, len);
            }
        };
    }

    @Override
    public void close() {
        if (id != null) cm.disconnect(id);
        qp.close();
        mr.close();
        cq.close();
        arena.close();
    }
}
