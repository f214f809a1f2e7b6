package org.urdma.bench.perf;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.HdrHistogram.Histogram;

/**
 * The kernel TCP baselines the real-link benchmarks are compared with, on the same interface:
 * a single-stream bulk transfer and a TCP_NODELAY ping-pong (half round trip, like send-lat).
 * <pre>
 * java -cp urdma.jar org.urdma.bench.perf.TcpBaseline server PORT
 * java -cp urdma.jar org.urdma.bench.perf.TcpBaseline stream HOST PORT SECONDS [CHUNK]
 * java -cp urdma.jar org.urdma.bench.perf.TcpBaseline pingpong HOST PORT SIZE ITERS
 * </pre>
 */
public final class TcpBaseline {
    private TcpBaseline() {
    }

    public static void main(String[] args) throws IOException {
        switch (args[0]) {
            case "server" -> server(Integer.parseInt(args[1]));
            case "stream" -> stream(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    args.length > 4 ? Integer.parseInt(args[4]) : 65536);
            case "pingpong" -> pingPong(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            default -> throw new IllegalArgumentException("mode: server, stream or pingpong, was " + args[0]);
        }
    }

    static void server(int port) throws IOException {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(port));
            System.out.println("TCP baseline server on " + ss.getLocalSocketAddress());
            while (true) {
                try (Socket s = ss.accept()) {
                    s.setTcpNoDelay(true);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    OutputStream out = s.getOutputStream();
                    int mode = in.readByte();
                    if (mode == 'S') {
                        byte[] buf = new byte[1 << 20];
                        long total = 0;
                        int n;
                        while ((n = in.read(buf)) > 0) total += n;
                        System.out.println("stream: received " + total + " bytes");
                    } else {
                        int size = in.readInt();
                        int iters = in.readInt();
                        byte[] msg = new byte[size];
                        for (int i = 0; i < iters; i++) {
                            in.readFully(msg);
                            out.write(msg);
                        }
                    }
                } catch (IOException e) {
                    System.out.println("connection ended: " + e.getMessage());
                }
            }
        }
    }

    static void stream(String host, int port, int seconds, int chunk) throws IOException {
        try (Socket s = new Socket(host, port)) {
            OutputStream out = s.getOutputStream();
            out.write('S');
            byte[] buf = new byte[chunk];
            long end = System.nanoTime() + seconds * 1_000_000_000L, start = System.nanoTime(), total = 0;
            while (System.nanoTime() < end) {
                out.write(buf);
                total += chunk;
            }
            double el = (System.nanoTime() - start) / 1e9;
            System.out.printf("TCP single stream: %d bytes in %.2f s = %.2f Gbit/s (%.1f MB/s)%n", total, el, total * 8 / el / 1e9,
                    total / el / (1 << 20));
        }
    }

    static void pingPong(String host, int port, int size, int iters) throws IOException {
        try (Socket s = new Socket(host, port)) {
            s.setTcpNoDelay(true);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            InputStream in = s.getInputStream();
            out.writeByte('P');
            out.writeInt(size);
            out.writeInt(iters + iters / 2);
            out.flush();
            byte[] msg = new byte[size];
            Histogram h = new Histogram(3_600_000_000_000L, 3);
            for (int i = 0; i < iters + iters / 2; i++) {
                long t0 = System.nanoTime();
                out.write(msg);
                out.flush();
                int got = 0;
                while (got < size) {
                    int n = in.read(msg, got, size - got);
                    if (n < 0) throw new IOException("server closed");
                    got += n;
                }
                if (i >= iters / 2) h.recordValue(Math.max(1, (System.nanoTime() - t0) / 2)); // first third is warm-up
            }
            System.out.printf("TCP ping-pong %d B, TCP_NODELAY, half round trip [usec]: min %.2f p50 %.2f avg %.2f p99 %.2f p99.9 %.2f max %.2f%n",
                    size, h.getMinValue() / 1e3, h.getValueAtPercentile(50) / 1e3, h.getMean() / 1e3, h.getValueAtPercentile(99) / 1e3,
                    h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3);
        }
    }
}
