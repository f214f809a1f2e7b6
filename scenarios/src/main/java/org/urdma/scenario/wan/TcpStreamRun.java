package org.urdma.scenario.wan;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.urdma.tools.perf.PerfOptions;
import org.urdma.nativeio.netns.Netns;

/**
 * Kernel TCP, one stream from h1 to h2 through the switch, in this process: the sender's socket is made in h1's
 * namespace with the row's congestion control set on it (TCP_CONGESTION: a namespace's default may only be one of the
 * host's tcp_allowed_congestion_control, a socket's may be any available one for root), the receiver's in h2's. The sender writes a
 * pseudo-random pattern for the run's duration; the receiver checks every byte against it and counts what arrived
 * between the duration's margins (perftest's -D margins, as the urdma rows sample: start-up and drain excluded on
 * both). Retransmissions: RetransSegs of h1's /proc/net/snmp (per namespace) before and after. CPU:
 * the receiving thread's CPU time (ThreadMXBean: user + system, the kernel's copy to user space included).
 */
final class TcpStreamRun {
    private static final int PATTERN = (1 << 20) + 7; // not a power of two: a misplaced block does not match by chance
    private static final int CHUNK = 64 * 1024;
    private static final int PORT = 18_777;

    private TcpStreamRun() {
    }

    static WanCell run(WanBed bed, WanProtocol p, WanPath path, double seconds) throws Exception {
        String h1 = bed.namespace("h1");
        String h2 = bed.namespace("h2");
        byte[] pattern = new byte[2 * PATTERN];
        new SplittableRandom(42).nextBytes(pattern);
        System.arraycopy(pattern, 0, pattern, PATTERN, PATTERN);
        long retransBefore = retransSegs(h1);
        ServerSocket server = Netns.call(h2, () -> {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.setReceiveBufferSize(64 << 20);
            s.bind(new InetSocketAddress(PORT));
            return s;
        });
        long durationNs = (long) (seconds * 1e9);
        Receiver receiver = new Receiver(server, pattern);
        CompletableFuture<Void> rx = CompletableFuture.runAsync(receiver, r -> Thread.ofPlatform().name("wan-tcp-rx").start(r));
        String note = "";
        try (server) {
            SocketChannel s = Netns.call(h1, () -> {
                SocketChannel c = SocketChannel.open();
                c.setOption(StandardSocketOptions.SO_SNDBUF, 64 << 20);
                CongestionControl.set(c, p.congestionControl());
                c.connect(new InetSocketAddress(WanPath.H2_IP, PORT));
                return c;
            });
            long start = System.nanoTime();
            long margin = PerfOptions.marginNanos(durationNs);
            receiver.sampleFrom = start + margin;
            receiver.sampleTo = start + durationNs - margin;
            receiver.deadline = start + durationNs;
            try (s) {
                String used = CongestionControl.get(s);
                if (!used.equals(p.congestionControl())) {
                    throw new IllegalStateException("TCP_CONGESTION is " + used + ", not " + p.congestionControl());
                }
                ByteBuffer src = ByteBuffer.wrap(pattern);
                long pos = 0;
                while (System.nanoTime() - start < durationNs) {
                    int at = (int) (pos % PATTERN);
                    src.limit(at + CHUNK).position(at);
                    pos += s.write(src);
                }
            } catch (IOException e) {
                if (System.nanoTime() - start < durationNs) {
                    note = "sender: " + e.getMessage();
                } // else: the receiver closed at the deadline with data unread (a reset): the run's normal end
            }
            rx.get(Math.max(30, (long) seconds * 3), TimeUnit.SECONDS);
        }
        long retrans = retransSegs(h1) - retransBefore;
        if (receiver.error != null && note.isEmpty()) {
            note = "receiver: " + receiver.error;
        }
        double cpu = receiver.bytesTotal == 0 ? Double.NaN : receiver.cpuNs / (double) receiver.bytesTotal;
        double sampledSeconds = (receiver.sampleTo - receiver.sampleFrom) / 1e9;
        return new WanCell(p.key(), path.rttMs(), path.lossPercent(), path.rateGbps(), receiver.bytesAtTo - receiver.bytesAtFrom,
            sampledSeconds, retrans, -1,
            receiver.mismatchAt < 0 && receiver.bytesTotal > 0, cpu,
            receiver.mismatchAt < 0 ? note : "data mismatch at byte " + receiver.mismatchAt);
    }

    /**
     * Accepts one connection, checks every byte and counts what arrived before the deadline, then closes (the data
     * still in flight is not waited for: at a high loss rate it could take minutes).
     */
    private static final class Receiver implements Runnable {
        private final ServerSocket server;
        private final byte[] pattern;
        volatile long deadline = Long.MAX_VALUE;
        /** What arrived by these times: the goodput is sampled between them, as urdma perf's -D samples (perftest's margins). */
        volatile long sampleFrom = Long.MAX_VALUE;
        volatile long sampleTo = Long.MAX_VALUE;
        long bytesAtFrom;
        long bytesAtTo;
        long bytesTotal;
        long mismatchAt = -1;
        long cpuNs;
        String error;

        Receiver(ServerSocket server, byte[] pattern) {
            this.server = server;
            this.pattern = pattern;
        }

        @Override
        public void run() {
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            try (Socket s = server.accept()) {
                long cpu0 = mx.getCurrentThreadCpuTime();
                s.setSoTimeout(200);
                InputStream in = s.getInputStream();
                byte[] buf = new byte[CHUNK];
                while (System.nanoTime() <= deadline) {
                    int n;
                    try {
                        n = in.read(buf);
                    } catch (java.net.SocketTimeoutException idle) {
                        continue;
                    }
                    if (n < 0) {
                        break;
                    }
                    if (mismatchAt < 0) {
                        int at = (int) (bytesTotal % PATTERN);
                        int bad = java.util.Arrays.mismatch(buf, 0, n, pattern, at, at + n);
                        if (bad >= 0) {
                            mismatchAt = bytesTotal + bad;
                        }
                    }
                    bytesTotal += n;
                    long now = System.nanoTime();
                    if (now - sampleFrom < 0) {
                        bytesAtFrom = bytesTotal;
                    }
                    if (now - sampleTo < 0) {
                        bytesAtTo = bytesTotal;
                    }
                }
                s.setSoLinger(true, 0);
                cpuNs = mx.getCurrentThreadCpuTime() - cpu0;
            } catch (IOException e) {
                error = e.getMessage();
            }
        }
    }

    /** Tcp: RetransSegs of the namespace's /proc/net/snmp. */
    static long retransSegs(String ns) {
        String[] lines = Netns.exec(ns, "cat", "/proc/net/snmp").split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].startsWith("Tcp:") && lines[i + 1].startsWith("Tcp:")) {
                String[] names = lines[i].trim().split("\\s+");
                String[] values = lines[i + 1].trim().split("\\s+");
                for (int k = 0; k < names.length; k++) {
                    if (names[k].equals("RetransSegs")) {
                        return Long.parseLong(values[k]);
                    }
                }
            }
        }
        throw new IllegalStateException("no Tcp RetransSegs in /proc/net/snmp of " + ns);
    }
}
