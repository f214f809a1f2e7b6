package org.urdma.express.session;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.urdma.express.protocol.ControlLimits;
import org.urdma.express.protocol.Message;
import org.urdma.express.protocol.MessageCodec;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * The RDMA transport of a session: the control messages of one RC connection as SENDs, and data as an RDMA WRITE
 * followed by the SEND that describes it (RC delivers them in order, so the description arrives after the bytes are
 * placed). Receive buffers are reposted as soon as a message is decoded; messages wait in order when every send
 * buffer or send-queue slot is busy, or the peer has no receive left for them ({@link MessageCredits}: each SEND
 * carries this side's receive count as immediate data, and a zero-length SEND carries it alone).
 */
public final class RdmaChannel implements ControlChannel {
    /** How long a closed peer must have been quiet before {@link #peerGone} says so. */
    private static final long PEER_GONE_QUIET_NANOS = 200_000_000L;
    /** Receives posted, and so the messages the peer may have on their way. */
    static final int RECEIVES = 64;
    private static final int SEND_BUFFERS = 32;

    private final RdmaConnection connection;
    private final SessionMemory memory;
    private final MemoryRegion recv;
    private final MemoryRegion send;
    private final ArrayDeque<Integer> freeSend = new ArrayDeque<>();
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final int[] wrsOf = new int[SEND_BUFFERS];
    private final long[] tokenOf = new long[SEND_BUFFERS];
    private final int sqDepth;
    private int sqUsed;
    private final WorkCompletion[] wcs = new WorkCompletion[16];
    private final SendWorkRequest wr = new SendWorkRequest();
    private final ReceiveWorkRequest rwr = new ReceiveWorkRequest();
    private long lastReceiveNanos = System.nanoTime();
    private final MessageCredits credits = new MessageCredits(RECEIVES);

    private record Pending(ByteBuffer message, MemoryRegion source, long sourceOffset, int length, long remoteAddress, int rkey, long token) {
    }

    /** A channel on {@code connection} whose registered memory is {@code memory} (closed with the channel). */
    public RdmaChannel(RdmaConnection connection, SessionMemory memory, int sqDepth) {
        this.connection = connection;
        this.memory = memory;
        this.sqDepth = sqDepth;
        this.recv = memory.register((long) RECEIVES * ControlLimits.MAX_MESSAGE, AccessFlags.LOCAL_WRITE);
        this.send = memory.register((long) SEND_BUFFERS * ControlLimits.MAX_MESSAGE, AccessFlags.LOCAL_WRITE);
        for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
        for (int i = 0; i < SEND_BUFFERS; i++) freeSend.add(i);
        for (int i = 0; i < RECEIVES; i++) postReceive(i); // the credits start with these
    }

    public RdmaConnection connection() {
        return connection;
    }

    @Override
    public SessionMemory memory() {
        return memory;
    }

    @Override
    public String transport() {
        org.urdma.transport.cm.WanOffer w = connection.wan();
        return w.on() ? "wan " + w : "go-back-N";
    }

    @Override
    public byte[] peerPrivateData() {
        return connection.peerPrivateData();
    }

    @Override
    public String toString() {
        return connection.toString();
    }

    private void postReceive(int i) {
        connection.qp().postRecv(rwr.reset().wrId(i).addSge(recv, (long) i * ControlLimits.MAX_MESSAGE, ControlLimits.MAX_MESSAGE));
    }

    private void repost(int i) {
        postReceive(i);
        credits.onReposted();
    }

    /** Queues a message. */
    @Override
    public void send(Message m) {
        pending.add(new Pending(MessageCodec.encode(m), null, 0, 0, 0, 0, -1));
    }

    /** Queues raw bytes as one message (a test's malformed message). */
    @Override
    public void sendRaw(ByteBuffer b) {
        pending.add(new Pending(b.duplicate(), null, 0, 0, 0, 0, -1));
    }

    /** Queues a WRITE of {@code length} bytes and then the message describing them; {@code token} (>= 0) is reported when both completed. */
    @Override
    public void sendAfterWrite(MemoryRegion source, long offset, int length, long remoteAddress, int rkey, Message m, long token) {
        pending.add(new Pending(MessageCodec.encode(m), source, offset, length, remoteAddress, rkey, token));
    }

    /** {@return SENDs the peer has receives for now} */
    @Override
    public int credits() {
        return credits.available();
    }

    /** {@return whether a posted SEND or WRITE has not completed yet} */
    @Override
    public boolean inFlight() {
        return sqUsed > 0;
    }

    /** {@return whether anything is queued or on the wire} */
    @Override
    public boolean busy() {
        return !pending.isEmpty() || sqUsed > 0;
    }

    @Override
    public long nanosSinceLastReceive(long now) {
        return now - lastReceiveNanos;
    }

    @Override
    public boolean peerGone(long now) {
        return connection.peerClosed() && nanosSinceLastReceive(now) > PEER_GONE_QUIET_NANOS;
    }

    /**
     * Posts what can go, reaps send completions and decodes received messages.
     *
     * @return how much work was done (0: idle)
     * @throws ConnectionLostException when a work request failed
     * @throws org.urdma.express.protocol.MalformedMessageException when the peer sent a message that does not parse
     */
    @Override
    public int pump(Handler h) {
        int work = flush();
        int n = connection.sendCq().poll(wcs, wcs.length);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            if (wc.status() != WcStatus.SUCCESS) throw new ConnectionLostException("connection: a " + wc.opcode() + " failed with " + wc.status());
            int buf = (int) wc.wrId();
            sqUsed -= wrsOf[buf];
            freeSend.add(buf);
            if (tokenOf[buf] >= 0) h.onWriteDone(tokenOf[buf]);
        }
        work += n;
        n = connection.recvCq().poll(wcs, wcs.length);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = wcs[i];
            if (wc.status() != WcStatus.SUCCESS) throw new ConnectionLostException("connection: a receive failed with " + wc.status());
            if (wc.opcode() != WcOpcode.RECV) continue;
            int buf = (int) wc.wrId();
            if (wc.hasImm()) credits.onPeerCount(wc.immData());
            if (wc.byteLen() == 0) { // credits only
                repost(buf);
                continue;
            }
            ByteBuffer b = recv.segment().asSlice((long) buf * ControlLimits.MAX_MESSAGE, wc.byteLen()).asByteBuffer();
            Message m;
            try {
                m = MessageCodec.decode(b, wc.byteLen());
            } finally {
                repost(buf); // decoded messages own their bytes
            }
            lastReceiveNanos = System.nanoTime();
            h.onMessage(m);
        }
        return work + n;
    }

    private int flush() {
        int posted = 0;
        while (!pending.isEmpty() && !freeSend.isEmpty() && credits.mayPostMessage()) {
            Pending p = pending.peek();
            int wrs = p.source != null ? 2 : 1;
            if (sqUsed + wrs > sqDepth) break;
            pending.poll();
            int buf = freeSend.poll();
            ByteBuffer dst = send.segment().asSlice((long) buf * ControlLimits.MAX_MESSAGE, ControlLimits.MAX_MESSAGE).asByteBuffer();
            int len = p.message.remaining();
            dst.put(p.message.duplicate());
            if (p.source != null) {
                connection.qp().postSend(wr.reset().wrId(Long.MAX_VALUE).opcode(WrOpcode.RDMA_WRITE).flags(0)
                        .addSge(p.source, p.sourceOffset, p.length).remote(p.remoteAddress, p.rkey));
            }
            connection.qp().postSend(wr.reset().wrId(buf).opcode(WrOpcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED).immData(credits.onSend())
                    .addSge(send, (long) buf * ControlLimits.MAX_MESSAGE, len));
            wrsOf[buf] = wrs;
            tokenOf[buf] = p.token;
            sqUsed += wrs;
            posted++;
        }
        if (credits.creditDue() && !freeSend.isEmpty() && sqUsed < sqDepth) {
            int buf = freeSend.poll();
            connection.qp().postSend(wr.reset().wrId(buf).opcode(WrOpcode.SEND_WITH_IMM).flags(SendFlags.SIGNALED).immData(credits.onSend()));
            wrsOf[buf] = 1;
            tokenOf[buf] = -1;
            sqUsed++;
            posted++;
        }
        return posted;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } finally {
            memory.close();
        }
    }
}
