package org.urdma.tools.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.urdma.transport.cm.ConnectionException;
import org.urdma.transport.cm.Keepalive;
import org.urdma.transport.cm.perftest.PerftestBwReport;
import org.urdma.transport.cm.perftest.PerftestDest;
import org.urdma.transport.cm.perftest.PerftestExchange;
import org.urdma.transport.cm.perftest.PerftestMtu;
import org.urdma.transport.cm.perftest.PerftestSysData;
import org.urdma.transport.cm.perftest.PerftestVersion;
import org.urdma.transport.cm.perftest.Role;
import org.urdma.transport.cm.perftest.Transcript;

/**
 * The TCP connection of perftest 6.06's out-of-band exchange (port 18515, not rdma_cm) and the steps of it that
 * {@code urdma perf} takes, in the order the stock tools take them (interop/README.md has the byte sequences):
 * version, page and cache-line size, MTU, then key messages: one per QP with the connection data, the same
 * message again as every barrier, the bandwidth report, "done".
 */
final class PerftestLink implements AutoCloseable {
    /** Page size we announce: perftest's cycle buffer (sysconf(_SC_PAGESIZE) on x86-64). */
    static final int PAGE = 4096;
    /** Cache-line size we announce (perftest's default where sysfs has none). */
    static final int CACHE_LINE = 64;

    /** The TCP connection, or null when the exchange runs over rdma_cm (-R). */
    private final Socket socket;
    private final RdmaCmChannel rdma;
    private final PerftestExchange x;
    private PerftestDest barrierMessage;
    private int mtuEnum;
    private PerftestSysData sys;
    private String peerVersion;

    private PerftestLink(Socket socket, Role role) throws IOException {
        this.socket = socket;
        this.rdma = null;
        socket.setTcpNoDelay(true);
        Keepalive.apply(socket); // a peer that vanishes between two barriers is noticed within Keepalive.BOUND_SECONDS
        this.x = new PerftestExchange(role, socket.getInputStream(), socket.getOutputStream());
    }

    private PerftestLink(RdmaCmChannel rdma, Role role) {
        this.socket = null;
        this.rdma = rdma;
        this.x = new PerftestExchange(role, rdma.in(), rdma.out(), true);
    }

    /** The same steps over perftest -R's rdma_cm channel (its own RC QP, one SEND per step, binary key messages). */
    static PerftestLink over(RdmaCmChannel rdma, boolean server) {
        return new PerftestLink(rdma, server ? Role.SERVER : Role.CLIENT);
    }

    /** Accepts one client (server) or connects, retrying a refused connection until the timeout (client). */
    static PerftestLink open(String peer, int port, Duration timeout) {
        try {
            if (peer == null) {
                try (ServerSocket ss = new ServerSocket()) {
                    ss.setReuseAddress(true);
                    ss.bind(new InetSocketAddress(port));
                    ss.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(timeout.toMillis(), 60_000)));
                    Socket s = ss.accept();
                    s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                    return new PerftestLink(s, Role.SERVER);
                } catch (SocketTimeoutException e) {
                    throw new ConnectionException("accept: no perftest client connected to port " + port + " within "
                            + Math.max(timeout.toMillis(), 60_000) + " ms");
                }
            }
            InetSocketAddress to = new InetSocketAddress(peer, port);
            long deadline = System.nanoTime() + timeout.toNanos();
            IOException last = null;
            while (System.nanoTime() - deadline < 0) {
                Socket s = new Socket();
                try {
                    s.connect(to, (int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                    s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                    return new PerftestLink(s, Role.CLIENT);
                } catch (ConnectException e) { // refused: the server may start later
                    last = e;
                    s.close();
                    sleep(100);
                } catch (IOException e) {
                    last = e;
                    s.close();
                    break;
                }
            }
            throw new ConnectionException("connect: no urdma/perftest server at " + to + " within " + timeout.toMillis()
                    + " ms" + (last == null ? "" : " (" + last.getMessage() + ")"), last);
        } catch (IOException e) {
            throw new ConnectionException("perftest exchange on port " + port + ": " + e.getMessage(), e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectionException("interrupted while connecting");
        }
    }

    boolean server() {
        return x.role() == Role.SERVER;
    }

    /** Version, system data and MTU (check_version_compatibility, check_sys_data, check_mtu); returns the MTU in bytes both use. */
    int negotiate(int localMtuBytes) {
        return io(() -> {
            peerVersion = x.exchangeVersion(PerftestVersion.CURRENT);
            PerftestSysData mine = new PerftestSysData(PAGE, CACHE_LINE);
            sys = mine.max(x.exchangeSysData(mine));
            int mine2 = PerftestMtu.enumOf(localMtuBytes);
            mtuEnum = PerftestMtu.negotiate(mine2, x.exchangeMtu(mine2));
            return PerftestMtu.bytesOf(mtuEnum);
        }, "version, system data and MTU");
    }

    /** The cycle buffer and cache line both sides settled on (the larger of each). */
    PerftestSysData sysData() {
        return sys;
    }

    String peerVersion() {
        return peerVersion;
    }

    /** One key message each way; the first one sent is re-sent as every later barrier, as perftest does. */
    PerftestDest keys(PerftestDest mine) {
        if (barrierMessage == null) barrierMessage = mine;
        return io(() -> x.exchangeKeys(mine), "key exchange");
    }

    /** One key message each way that later barriers do not repeat (perftest -R's syncs around the rdma_cm connection). */
    void sync(PerftestDest mine, String step) {
        io(() -> x.exchangeKeys(mine), step);
    }

    /** ctx_hand_shake on QP 0's data: a barrier. */
    void barrier(String step) {
        io(() -> x.exchangeKeys(barrierMessage), step);
    }

    /** The five report fields each way; returns the peer's raw 40 bytes. */
    byte[] report(PerftestBwReport mine) {
        return io(() -> x.exchangeBwReport(mine), "bandwidth report");
    }

    /** ctx_close_connection: a barrier, then "done" (the peer's "done" is read when it sends one before closing). */
    void closeConnection() {
        barrier("close connection");
        if (rdma != null) return; // over rdma_cm perftest ends with the barrier: no "done"
        io(() -> {
            x.exchangeDone();
            return null;
        }, "done");
    }

    /** For the time the peer runs its test between two barriers. */
    void readTimeout(Duration d) {
        if (socket == null) {
            rdma.timeout(d);
            return;
        }
        try {
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, d.toMillis()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private long timeoutMillis() {
        if (socket == null) return -1;
        try {
            return socket.getSoTimeout();
        } catch (IOException e) {
            return -1;
        }
    }

    private String peerName() {
        return socket == null ? "the rdma_cm peer" : socket.getInetAddress() == null ? "?" : socket.getInetAddress().getHostAddress();
    }

    Transcript transcript() {
        return x.transcript();
    }

    private interface Step<T> {
        T run() throws IOException;
    }

    private <T> T io(Step<T> s, String what) {
        try {
            return s.run();
        } catch (SocketTimeoutException e) {
            throw new ConnectionException("perftest exchange: the peer sent nothing during '" + what + "' within " + timeoutMillis() + " ms");
        } catch (IOException e) {
            if (Keepalive.peerVanished(e)) {
                throw new ConnectionException("perftest exchange, " + what + ": " + Keepalive.vanished(peerName()), e);
            }
            throw new ConnectionException("perftest exchange, " + what + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        if (rdma != null) {
            rdma.close();
            return;
        }
        try {
            socket.close();
        } catch (IOException e) {
            // closing: nothing left to report
        }
    }
}
