package org.urdma.express.tcp;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import org.urdma.nativeio.SocketBuffers;
import org.urdma.nativeio.TcpCongestion;

/**
 * How a copy over kernel TCP sets up its sockets.
 *
 * @param congestion   the congestion control set on every socket (TCP_CONGESTION), or null for the kernel's default
 * @param streams      TCP connections the blocks are striped over
 * @param socketBuffer SO_SNDBUF and SO_RCVBUF of every socket, bytes (past net.core.wmem_max and rmem_max where this
 *                     process may); 0 leaves them to the kernel's autotuning
 */
public record TcpOptions(String congestion, int streams, int socketBuffer) {
    public static final int MAX_STREAMS = 64;

    public TcpOptions {
        if (streams < 1 || streams > MAX_STREAMS) throw new IllegalArgumentException("--streams: 1.." + MAX_STREAMS + ", was " + streams);
        if (socketBuffer != 0 && socketBuffer < 64 * 1024) throw new IllegalArgumentException("--socket-buffer: at least 64K, was " + socketBuffer);
        if (congestion != null) TcpCongestion.requireAvailable("--cc", congestion);
    }

    /** {@return one stream, the kernel's congestion control and autotuned buffers} */
    public static TcpOptions defaults() {
        return new TcpOptions(null, 1, 0);
    }

    public TcpOptions withCongestion(String cc) {
        return new TcpOptions(cc, streams, socketBuffer);
    }

    public TcpOptions withStreams(int n) {
        return new TcpOptions(congestion, n, socketBuffer);
    }

    public TcpOptions withSocketBuffer(int bytes) {
        return new TcpOptions(congestion, streams, bytes);
    }

    /** Sets what a socket needs before it connects (or after it was accepted, with the client's congestion control). */
    static void configure(SocketChannel s, String congestion, int socketBuffer) throws IOException {
        s.setOption(StandardSocketOptions.TCP_NODELAY, true); // control messages are small and wait on each other
        if (socketBuffer > 0 && !SocketBuffers.force(s, socketBuffer)) { // without CAP_NET_ADMIN the kernel caps them at *mem_max
            s.setOption(StandardSocketOptions.SO_SNDBUF, socketBuffer);
            s.setOption(StandardSocketOptions.SO_RCVBUF, socketBuffer);
        }
        if (congestion != null) TcpCongestion.set(s, congestion);
    }
}
