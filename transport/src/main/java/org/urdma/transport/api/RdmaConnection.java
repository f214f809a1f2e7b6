package org.urdma.transport.api;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.urdma.transport.cm.ConnectionException;
import org.urdma.transport.cm.ConnectionManager;
import org.urdma.transport.cm.ExchangeChannel;
import org.urdma.transport.cm.ExchangeFormat;
import org.urdma.transport.cm.QpEndpoint;
import org.urdma.transport.cm.QpHandshake;
import org.urdma.transport.cm.UrdmaExchangeFormat;
import org.urdma.transport.cm.WanOffer;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionChannel;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QueuePair;

/**
 * A QP connected to a peer's (in RTS), its send and receive CQs, the optional completion channel both report to,
 * and the private data the peer sent — what {@code rdma_connect}/{@code rdma_accept} or DiSNI's
 * {@code RdmaActiveEndpoint} give. The out-of-band channel stays open for {@link #barrier}s until {@link #close}.
 */
public final class RdmaConnection implements AutoCloseable {
    private static final ExchangeFormat FORMAT = new UrdmaExchangeFormat();
    private static final int QKEY = 0x11111111;

    private final UrdmaDevice device;
    /** Owned by a client connection, null when the server's listener owns it. */
    private final ConnectionManager cm;
    private final ExchangeChannel channel;
    private final CompletionChannel completionChannel;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair qp;
    private final QpEndpoint local;
    private final QpEndpoint remote;
    private final byte[] peerPrivateData;
    /** rdma_cm connections: sends the DREQ on close (null for the out-of-band exchange). */
    private Runnable disconnect;

    private RdmaConnection(UrdmaDevice device, ConnectionManager cm, ExchangeChannel channel, CompletionChannel cc,
                           CompletionQueue sendCq, CompletionQueue recvCq, QueuePair qp, QpEndpoint local, QpEndpoint remote,
                           byte[] peerPrivateData) {
        this.device = device;
        this.cm = cm;
        this.channel = channel;
        this.completionChannel = cc;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.qp = qp;
        this.local = local;
        this.remote = remote;
        this.peerPrivateData = peerPrivateData;
    }

    /** Both roles after the TCP connection: QP and CQs, urdma's exchange to RTS, then the private data each way. */
    static RdmaConnection establish(UrdmaDevice device, ConnectionManager cm, ExchangeChannel channel, EndpointOptions o) {
        CompletionChannel cc = null;
        CompletionQueue scq = null, rcq = null;
        QueuePair qp = null;
        try {
            channel.readTimeout(o.timeout());
            cc = o.completionChannel() ? device.verbs().createCompletionChannel() : null;
            scq = device.verbs().createCq(o.depth() * 2, cc);
            rcq = device.verbs().createCq(o.depth() * 2, cc);
            qp = device.pd().createQp(new QpInitAttributes().type(o.type()).sendCq(scq).recvCq(rcq)
                    .maxSendWr(o.depth()).maxRecvWr(o.depth()).maxSendSge(4).maxRecvSge(4));
            QpEndpoint local = new QpEndpoint(0, qp.qpNum(), ThreadLocalRandom.current().nextInt(1 << 24), device.gid(),
                    device.verbs().mac(), device.mtu(), 0, 0, 0, 16, QpEndpoint.Features.ALL).withWan(o.wan());
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(local.mtu()).withAccess(AccessFlags.LOCAL_WRITE
                    | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | (o.type() == org.urdma.verbs.QpType.RC ? AccessFlags.REMOTE_ATOMIC : 0));
            QpEndpoint remote = QpHandshake.connect(channel, FORMAT, device.soft(), device.port(), qp, local, c, QKEY,
                    o.timeout().toNanos());
            byte[] theirs = swapPrivateData(channel, o.privateData());
            return new RdmaConnection(device, cm, channel, cc, scq, rcq, qp, local, remote, theirs);
        } catch (RuntimeException e) {
            if (qp != null) qp.close();
            if (scq != null) scq.close();
            if (rcq != null) rcq.close();
            if (cc != null) cc.close();
            channel.close();
            throw e;
        }
    }

    /** A connection rdma_cm's wire protocol made: no out-of-band channel; closing it disconnects (DREQ). */
    static RdmaConnection ofCm(UrdmaDevice device, CompletionChannel cc, CompletionQueue scq, CompletionQueue rcq, QueuePair qp,
                               QpEndpoint local, QpEndpoint remote, byte[] peerPrivateData, Runnable disconnect) {
        RdmaConnection c = new RdmaConnection(device, null, null, cc, scq, rcq, qp, local, remote, peerPrivateData);
        c.disconnect = disconnect;
        return c;
    }

    /** Length (u32) then bytes, each way; a length above the limit is refused before reading it. */
    private static byte[] swapPrivateData(ExchangeChannel channel, byte[] mine) {
        byte[] len = channel.swap(ByteBuffer.allocate(4).putInt(mine.length).array(), 4, "private data length");
        int n = ByteBuffer.wrap(len).getInt();
        if (n < 0 || n > EndpointOptions.MAX_PRIVATE_DATA) {
            throw new ConnectionException("private data: " + channel.peer() + " announced " + n + " bytes (at most "
                    + EndpointOptions.MAX_PRIVATE_DATA + ")");
        }
        return channel.swap(mine, n, "private data");
    }

    /** {@return the connected QP (RTS)} */
    public QueuePair qp() {
        return qp;
    }

    /** {@return the CQ of the QP's send queue} */
    public CompletionQueue sendCq() {
        return sendCq;
    }

    /** {@return the CQ of the QP's receive queue} */
    public CompletionQueue recvCq() {
        return recvCq;
    }

    /** {@return the completion channel both CQs report to, or null unless {@link EndpointOptions#completionChannel()}} */
    public CompletionChannel completionChannel() {
        return completionChannel;
    }

    /** {@return what the peer passed as {@link EndpointOptions#privateData()} (empty if nothing)} */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /** {@return the WAN mode this connection runs: what both sides offered ({@link WanOffer#NONE}: DC mode, go-back-N)} */
    public WanOffer wan() {
        return local.wan().agree(remote.wan());
    }

    /** {@return the peer's QP number} */
    public int peerQpn() {
        return remote.qpn();
    }

    /** {@return the device this connection's QP is on} */
    public UrdmaDevice device() {
        return device;
    }

    /**
     * Waits until the peer reaches the barrier of the same name too (over the out-of-band channel), e.g. "done" after
     * the last RDMA operation, so neither side tears down memory the other still uses.
     *
     * @param step    the barrier's name, for messages
     * @param timeout how long to wait for the peer
     * @throws RdmaConnectException if the peer does not arrive within {@code timeout}, closed or vanished
     */
    public void barrier(String step, Duration timeout) {
        if (channel == null) throw new RdmaConnectException("barrier: rdma_cm connections have no out-of-band channel (use a SEND)", null);
        channel.readTimeout(timeout);
        try {
            FORMAT.barrier(channel, local, step);
        } catch (ConnectionException e) {
            throw new RdmaConnectException(e.getMessage(), e);
        }
    }

    /**
     * {@return whether the peer closed the out-of-band connection (it closed this connection, or its process ended): its
     * QP is gone too; false for connections rdma_cm made, which have none}
     */
    public boolean peerClosed() {
        return channel != null && channel.ended();
    }

    /** Destroys the QP, its CQs and channel, and closes the out-of-band connection. */
    @Override
    public void close() {
        if (disconnect != null) disconnect.run();
        qp.close();
        sendCq.close();
        recvCq.close();
        if (completionChannel != null) completionChannel.close();
        if (channel != null) channel.close();
        if (cm != null) cm.close();
    }

    @Override
    public String toString() {
        return "RdmaConnection[" + qp.type() + " qpn 0x" + Integer.toHexString(qp.qpNum()) + " -> " + (channel != null ? channel.peer() : "rdma_cm peer")
                + " qpn 0x" + Integer.toHexString(remote.qpn()) + "]";
    }
}
