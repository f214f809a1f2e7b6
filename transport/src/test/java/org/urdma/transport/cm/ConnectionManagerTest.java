package org.urdma.transport.cm;

import static org.junit.jupiter.api.Assertions.*;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.urdma.transport.port.PortIdentity;
import org.urdma.verbs.Gid;
import org.urdma.verbs.PathMtu;

/** The out-of-band exchange over loopback TCP: the happy path and every way a peer can misbehave. */
class ConnectionManagerTest {
    static final InetAddress LO = InetAddress.getLoopbackAddress();
    /** A short connect timeout, for the test that waits for it; the others use {@link #patient}, so load cannot fail them. */
    final ConnectionManager cm = new ConnectionManager(new ConnectionManager.Config(Duration.ofMillis(800), Duration.ofSeconds(10)));
    final ConnectionManager patient = new ConnectionManager(ConnectionManager.Config.defaults());
    final ExchangeFormat format = new UrdmaExchangeFormat();

    @AfterEach
    void close() {
        cm.close();
        patient.close();
    }

    static QpEndpoint endpoint(int qpn, String ip) {
        byte[] mac = PortIdentity.parseMac("02:00:00:00:00:0" + (qpn & 7));
        int a = PortIdentity.parseIpv4(ip);
        return new QpEndpoint(0, qpn, 0xABCDE, Gid.fromIpv4(new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a}),
                mac, PathMtu.MTU_4096, 0x1234, 0x7f0000001000L, 65536, 16, QpEndpoint.Features.ALL);
    }

    @Test
    void closingTheListenerEndsAWaitingAcceptAtOnceAndLaterAcceptsToo() throws Exception {
        ConnectionManager.Listener l = cm.listen(new InetSocketAddress(LO, 0));
        CompletableFuture<String> waiting = CompletableFuture.supplyAsync(() ->
                assertThrows(ConnectionException.class, () -> l.accept(Duration.ofSeconds(60))).getMessage());
        Thread.sleep(50); // most likely inside the 60 s wait by now; if not, the closed check answers the same
        l.close();
        // far below the 60 s the accept would otherwise wait, far above a prompt wake-up on a loaded machine
        String m = waiting.get(10, TimeUnit.SECONDS);
        assertTrue(m.startsWith("accept: the listener on ") && m.endsWith(" was closed"), m);
        assertThrows(ConnectionException.class, () -> l.accept(Duration.ofSeconds(60)));
    }

    @Test
    void bothSidesLearnTheOthersEndpointAndPassTheBarriers() throws Exception {
        QpEndpoint server = endpoint(0x11, "10.0.0.1"), client = endpoint(0x22, "10.0.0.2");
        try (ConnectionManager.Listener l = patient.listen(new InetSocketAddress(LO, 0))) {
            CompletableFuture<QpEndpoint> s = CompletableFuture.supplyAsync(() -> {
                try (ExchangeChannel ch = l.accept(Duration.ofSeconds(30))) {
                    assertFalse(ch.isClient());
                    QpEndpoint peer = format.exchange(ch, server);
                    format.barrier(ch, server, "sync");
                    format.finish(ch);
                    return peer;
                }
            });
            try (ExchangeChannel ch = patient.connect(l.localAddress())) {
                assertTrue(ch.isClient());
                assertEquals(server, format.exchange(ch, client));
                format.barrier(ch, client, "sync");
                format.finish(ch);
            }
            assertEquals(client, s.get(30, TimeUnit.SECONDS));
        }
        assertTrue(java.util.Set.of("io_uring", "epoll", "nio").contains(patient.transport()));
    }

    /**
     * {@code ch} with reads that wait {@code read} and writes that wait the default (a send the event loop is slow to
     * hand to the kernel on a loaded machine is not the timeout a test of a silent peer waits for).
     */
    static ExchangeChannel shortReads(ExchangeChannel ch, Duration read) {
        ch.readTimeout(read);
        return new ExchangeChannel() {
            @Override public boolean isClient() { return ch.isClient(); }
            @Override public String peer() { return ch.peer(); }
            @Override public void readTimeout(Duration timeout) { ch.readTimeout(timeout); }
            @Override public byte[] read(int length, String step) { return ch.read(length, step); }
            @Override public boolean ended() { return ch.ended(); }
            @Override public void close() { ch.close(); }

            @Override
            public void write(byte[] bytes, String step) {
                ch.readTimeout(ConnectionManager.Config.defaults().readTimeout());
                try {
                    ch.write(bytes, step);
                } finally {
                    ch.readTimeout(read);
                }
            }
        };
    }

    @Test
    void aPeerSpeakingSomethingElseIsNamedNotHungOn() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 1, LO)) {
            CompletableFuture<Void> garbage = CompletableFuture.runAsync(() -> {
                try (Socket s = ss.accept(); OutputStream o = s.getOutputStream()) {
                    s.getInputStream().readNBytes(UrdmaExchangeFormat.MESSAGE);
                    byte[] msg = new byte[UrdmaExchangeFormat.MESSAGE];
                    byte[] txt = "0000:000123:abcdef:00000000000000000000ffff0a000001".getBytes(StandardCharsets.US_ASCII);
                    System.arraycopy(txt, 0, msg, 0, txt.length);
                    o.write(msg);
                    o.flush();
                    s.getInputStream().read();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (ExchangeChannel ch = patient.connect(new InetSocketAddress(LO, ss.getLocalPort()))) {
                ConnectionException e = assertThrows(ConnectionException.class, () -> format.exchange(ch, endpoint(1, "10.0.0.1")));
                assertTrue(e.getMessage().contains("not an urdma peer"), e.getMessage());
            }
            garbage.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aSilentPeerTimesOutAndAVanishingPeerIsReported() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 2, LO)) {
            CompletableFuture<Socket> silent = CompletableFuture.supplyAsync(() -> {
                try {
                    return ss.accept();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (ExchangeChannel ch = shortReads(patient.connect(new InetSocketAddress(LO, ss.getLocalPort())), Duration.ofMillis(400))) {
                long t0 = System.nanoTime();
                ConnectionException e = assertThrows(ConnectionException.class, () -> format.exchange(ch, endpoint(1, "10.0.0.1")));
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertTrue(e.getMessage().contains("0 of " + UrdmaExchangeFormat.MESSAGE + " bytes within 400 ms"), e.getMessage());
                // it waited its timeout and then gave up (a hang would never end; a slow machine may end it late)
                assertTrue(ms >= 400 && ms < 30_000, ms + " ms");
            }
            silent.get(30, TimeUnit.SECONDS).close();

            CompletableFuture<Void> vanish = CompletableFuture.runAsync(() -> {
                try (Socket s = ss.accept()) {
                    s.getInputStream().readNBytes(10);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // the default read timeout: the peer's thread may be slow to take the connection and close it
            try (ExchangeChannel ch = patient.connect(new InetSocketAddress(LO, ss.getLocalPort()))) {
                ConnectionException e = assertThrows(ConnectionException.class, () -> format.exchange(ch, endpoint(1, "10.0.0.1")));
                assertTrue(e.getMessage().contains("closed the connection"), e.getMessage());
            }
            vanish.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void nobodyListeningFailsAfterTheConnectTimeout() throws Exception {
        int port;
        try (ServerSocket ss = new ServerSocket(0, 1, LO)) {
            port = ss.getLocalPort();
        }
        long t0 = System.nanoTime();
        ConnectionException e = assertThrows(ConnectionException.class, () -> cm.connect(new InetSocketAddress(LO, port)));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(e.getMessage().contains("within 800 ms"), e.getMessage());
        assertTrue(ms >= 800 && ms < 30_000, ms + " ms");
    }

    @Test
    void aBadAttributeNamesTheField() {
        byte[] m = UrdmaExchangeFormat.encode(endpoint(5, "10.0.0.5"));
        int mtuAt = UrdmaExchangeFormat.MAGIC.length + 4 + 2 + 4 + 4 + 16 + 1 + 6;
        m[mtuAt] = 0x03;
        m[mtuAt + 1] = 0x00; // 768 bytes: not a path MTU
        ConnectionException e = assertThrows(ConnectionException.class, () -> UrdmaExchangeFormat.decode(m, "peer"));
        assertTrue(e.getMessage().contains("pathMtu"), e.getMessage());
    }
}
