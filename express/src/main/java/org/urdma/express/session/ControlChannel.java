package org.urdma.express.session;

import java.nio.ByteBuffer;
import org.urdma.express.protocol.Message;
import org.urdma.verbs.MemoryRegion;

/**
 * The transport seam of a session: what the sender and the receiving session talk through. Control messages go in
 * order; data is a write of a staging window's bytes into a window the peer granted, followed by the message that
 * describes it, which the peer sees only once the bytes are placed. {@link RdmaChannel} does this with RDMA WRITEs and
 * SENDs on one RC connection, {@link org.urdma.express.tcp.TcpChannel} over kernel TCP streams. Used by one thread,
 * the session's control thread, which never touches files.
 */
public interface ControlChannel extends AutoCloseable {
    /** What the channel hands its owner. */
    interface Handler {
        void onMessage(Message m);

        /** The write and message of {@link #sendAfterWrite} with this token both completed. */
        void onWriteDone(long token);
    }

    /** {@return the session's staging memory, registered for this transport (freed by {@link #close})} */
    SessionMemory memory();

    /** Queues a message. */
    void send(Message m);

    /** Queues raw bytes as one message (a test's malformed message). */
    void sendRaw(ByteBuffer b);

    /** Queues a write of {@code length} bytes and then the message describing them; {@code token} (>= 0) is reported when both completed. */
    void sendAfterWrite(MemoryRegion source, long offset, int length, long remoteAddress, int rkey, Message m, long token);

    /** {@return messages the peer can take now} */
    int credits();

    /** {@return whether a message or write posted has not completed yet} */
    boolean inFlight();

    /** {@return whether anything is queued or on the wire} */
    boolean busy();

    long nanosSinceLastReceive(long now);

    /**
     * {@return whether the peer is gone: it closed the connection and nothing arrived for a moment since, so a message
     * it sent just before closing is taken first} Waiting for the idle timeout then gains nothing.
     */
    boolean peerGone(long now);

    /**
     * Sends what can go, reports completed writes and decodes received messages.
     *
     * @return how much work was done (0: idle)
     * @throws ConnectionLostException when the connection failed or the peer closed it
     * @throws org.urdma.express.protocol.MalformedMessageException when the peer sent a message that does not parse
     */
    int pump(Handler h);

    /** {@return the transport as a summary names it: the WAN features agreed, go-back-N, or TCP with its congestion control} */
    String transport();

    /** {@return what the peer sent with its connection request (the token's proof)} */
    byte[] peerPrivateData();

    /** Closes the connection and frees the session's memory. */
    @Override
    void close();
}
