package org.urdma.express.tcp;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.urdma.express.protocol.MalformedMessageException;

/**
 * The first bytes of every stream of a TCP session: which session it belongs to (a nonce of the client's), its place
 * among the session's streams, the congestion control the client asks for on the server's sockets too, and the
 * token's proof; the server answers each stream with OK or a one-line refusal.
 *
 * @param nonce       the same on every stream of one session
 * @param congestion  the client's congestion control, or "" for the server's default
 * @param privateData what an RDMA client sends in its connection request
 */
record TcpHandshake(int streams, int index, String congestion, byte[] nonce, byte[] privateData) {
    private static final byte[] MAGIC = "urdmaTCP".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 1;
    static final int NONCE = 16;
    private static final int MAX_PRIVATE = 1024;

    void write(SocketChannel s) throws IOException {
        byte[] cc = congestion.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(MAGIC.length + 4 + NONCE + 2 + cc.length + privateData.length);
        b.put(MAGIC).put((byte) VERSION).put((byte) streams).put((byte) index).put((byte) cc.length).put(nonce)
                .putShort((short) privateData.length).put(cc).put(privateData).flip();
        writeFully(s, b);
    }

    /** Reads a client's hello within {@code timeoutMillis}. */
    static TcpHandshake read(SocketChannel s, int timeoutMillis) throws IOException {
        DataInputStream in = input(s, timeoutMillis);
        byte[] magic = new byte[MAGIC.length];
        in.readFully(magic);
        if (!Arrays.equals(magic, MAGIC)) throw new MalformedMessageException("not an urdma copy over TCP (its first bytes are not the handshake)");
        int version = in.readUnsignedByte();
        if (version != VERSION) throw new MalformedMessageException("handshake version " + version + ", this server speaks " + VERSION);
        int streams = in.readUnsignedByte();
        int index = in.readUnsignedByte();
        int ccLen = in.readUnsignedByte();
        byte[] nonce = new byte[NONCE];
        in.readFully(nonce);
        int privateLen = in.readUnsignedShort();
        if (streams < 1 || streams > TcpOptions.MAX_STREAMS || index >= streams) {
            throw new MalformedMessageException("handshake: stream " + index + " of " + streams);
        }
        if (ccLen > 15 || privateLen > MAX_PRIVATE) throw new MalformedMessageException("handshake: a field is too long");
        byte[] cc = new byte[ccLen];
        in.readFully(cc);
        byte[] priv = new byte[privateLen];
        in.readFully(priv);
        restore(s);
        return new TcpHandshake(streams, index, new String(cc, StandardCharsets.US_ASCII), nonce, priv);
    }

    /** The server's answer: null for OK, or the reason it refuses. */
    static void answer(SocketChannel s, String refusal) throws IOException {
        byte[] r = refusal == null ? new byte[0] : refusal.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(3 + r.length).put((byte) (refusal == null ? 0 : 1)).putShort((short) r.length).put(r).flip();
        writeFully(s, b);
    }

    /** {@return the server's refusal, or null when it took the stream} */
    static String readAnswer(SocketChannel s, int timeoutMillis) throws IOException {
        DataInputStream in = input(s, timeoutMillis);
        try {
            int status = in.readUnsignedByte();
            byte[] r = new byte[in.readUnsignedShort()];
            in.readFully(r);
            restore(s);
            return status == 0 ? null : new String(r, StandardCharsets.UTF_8);
        } catch (SocketTimeoutException e) {
            throw new SocketTimeoutException("no answer to the handshake within " + timeoutMillis / 1000 + " s");
        }
    }

    private static DataInputStream input(SocketChannel s, int timeoutMillis) throws IOException {
        s.socket().setSoTimeout(timeoutMillis); // the channel's own reads have no timeout
        return new DataInputStream(s.socket().getInputStream());
    }

    private static void restore(SocketChannel s) throws IOException {
        s.socket().setSoTimeout(0);
    }

    static void writeFully(SocketChannel s, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) s.write(b);
    }
}
