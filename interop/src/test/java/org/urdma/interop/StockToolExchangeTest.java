package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.urdma.transport.cm.perftest.ExchangeFormatException;
import org.urdma.transport.cm.perftest.Gids;
import org.urdma.transport.cm.perftest.PerftestBwReport;
import org.urdma.transport.cm.perftest.PerftestDest;
import org.urdma.transport.cm.perftest.PerftestExchange;
import org.urdma.transport.cm.perftest.PerftestSysData;
import org.urdma.transport.cm.perftest.PerftestVersion;
import org.urdma.transport.cm.perftest.PingpongDest;
import org.urdma.transport.cm.perftest.PingpongExchange;
import org.urdma.transport.cm.perftest.Role;
import org.urdma.transport.cm.perftest.Transcript;

/**
 * The out-of-band codecs against the real perftest 6.06 and ibv_*_pingpong in an rxe guest, in both
 * roles, as far as the exchange goes without an RDMA data path. The Java side's sockets live in the
 * test's namespace (host address 10.77.0.1 on the bridge). Transcripts go to interop/target/interop/exchange/.
 */
@Tag("root")
@Tag("interop")
class StockToolExchangeTest extends GuestToolTest {
    private static final int PORT = 18515;
    private static final String GUEST_IP = TwoGuestFixture.guestIp(0);
    private static final Duration STEP = Duration.ofSeconds(60);

    private byte[] hostGid;
    private byte[] guestGid;

    StockToolExchangeTest() {
        // the run's one guest, eth0 at 1500 (active_mtu 1024)
        super("exchange", "ib_write_bw ibv_rc_pingpong ibv_ud_pingpong");
    }

    @BeforeAll
    void prepare() throws Exception {
        hostGid = Gids.ipv4Mapped((Inet4Address) InetAddress.getByName(TwoGuestFixture.HOST_IP));
        guestGid = Gids.ipv4Mapped((Inet4Address) InetAddress.getByName(GUEST_IP));
    }

    @AfterAll
    void teardown() {
        guest = null; // the shared guest is SharedGuest's to close
    }

    // A made-up urdma side: what the engine will advertise once it exists.
    private PerftestDest javaPerftestDest() {
        return new PerftestDest(0, 0, 0x000123, 0x0abcde, 0x1234abcd, 0x00007f0000010000L, hostGid, 0);
    }

    @Test
    void javaClientRunsTheWholeIbWriteBwExchangeAgainstTheStockServer(TestInfo info) throws Exception {
        CompletableFuture<GuestResult> server = guest.start("ib_write_bw -d rxe0 -x 1 -n 50 -F");
        guest.awaitListening(PORT, STEP);
        PerftestExchange x = null;
        byte[] trailing;
        try (SocketChannel ch = NetnsSockets.connect(fx.ns.name(), new InetSocketAddress(GUEST_IP, PORT))) {
            ch.socket().setSoTimeout(30_000);
            InputStream in = ch.socket().getInputStream();
            x = new PerftestExchange(Role.CLIENT, in, ch.socket().getOutputStream());
            assertEquals(PerftestVersion.CURRENT, x.exchangeVersion(PerftestVersion.CURRENT));
            PerftestSysData sys = x.exchangeSysData(new PerftestSysData(4096, 64));
            assertEquals(4096, sys.cycleBuffer(), "guest page size");
            assertEquals(3, x.exchangeMtu(3), "guest MTU enum (active_mtu 1024)");
            PerftestDest theirs = x.exchangeKeys(javaPerftestDest());
            checkGuestDest(theirs);
            assertEquals(theirs, x.exchangeKeys(javaPerftestDest()), "barrier after RTR repeats the keys");
            assertEquals(theirs, x.exchangeKeys(javaPerftestDest()), "second barrier before the run");
            // here the client would run its RDMA WRITEs; the stock server only waits for the barrier
            assertEquals(theirs, x.exchangeKeys(javaPerftestDest()), "barrier after the run");
            byte[] serverReport = x.exchangeBwReport(new PerftestBwReport(65536, 50, 12.5, 11.25, 0.000180));
            System.out.println("[interop] half-duplex server's report bytes (its stack, not a result): "
                    + java.util.HexFormat.of().formatHex(serverReport));
            assertEquals(theirs, x.exchangeKeys(javaPerftestDest()), "close handshake");
            x.exchangeDone();
            trailing = readToEof(in);
        } catch (IOException | AssertionError e) {
            throw new AssertionError("exchange failed: " + e + "\ntranscript:\n" + (x == null ? "" : x.transcript())
                    + "\nstock server:\n" + outputOf(server), e);
        } finally {
            save(info, x == null ? null : x.transcript());
        }
        GuestResult r = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
        System.out.println("[interop] trailing bytes after close: " + trailing.length + "\n" + r);
        assertEquals(0, trailing.length, "the server closes after the last key exchange");
        assertEquals(0, r.exitCode(), r.toString());
        // the stock tool printed the report we sent: doubles and counts were byte-swapped correctly
        assertTrue(r.output().matches("(?s).*\\n 65536\\s+50\\s+12\\.50\\s+11\\.25\\s+0\\.000180.*"), r.toString());
        // and it parsed our key message
        assertTrue(r.output().contains("QPN 0x0123 PSN 0xabcde RKey 0x1234abcd VAddr 0x007f0000010000"), r.toString());
        assertTrue(r.output().contains("GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:77:00:01"), r.toString());
    }

    /** The tool's output once it ends (killed after 10 s), for failure messages. */
    private String outputOf(CompletableFuture<GuestResult> f) {
        try {
            return f.get(10, TimeUnit.SECONDS).toString();
        } catch (Exception e) {
            try {
                guest.run("killall ib_write_bw ibv_rc_pingpong ibv_ud_pingpong 2>/dev/null; true", STEP);
                return f.get(20, TimeUnit.SECONDS).toString();
            } catch (Exception e2) {
                return "(no output: " + e2 + ")";
            }
        }
    }

    @Test
    void stockIbWriteBwClientSendsKeysTheJavaServerParses(TestInfo info) throws Exception {
        try (ServerSocketChannel listener = NetnsSockets.listen(fx.ns.name(),
                new InetSocketAddress(TwoGuestFixture.HOST_IP, PORT))) {
            CompletableFuture<GuestResult> client = guest.start("ib_write_bw -d rxe0 -x 1 -n 5 -F " + TwoGuestFixture.HOST_IP);
            PerftestExchange x;
            try (SocketChannel ch = accept(listener)) {
                ch.socket().setSoTimeout(30_000);
                x = new PerftestExchange(Role.SERVER, ch.socket().getInputStream(), ch.socket().getOutputStream());
                assertEquals(PerftestVersion.CURRENT, x.exchangeVersion(PerftestVersion.CURRENT));
                assertEquals(4096, x.exchangeSysData(new PerftestSysData(4096, 64)).cycleBuffer());
                assertEquals(3, x.exchangeMtu(3));
                PerftestDest theirs = x.exchangeKeys(javaPerftestDest());
                checkGuestDest(theirs);
                assertEquals(theirs, x.exchangeKeys(javaPerftestDest()), "barrier after RTR");
                assertEquals(theirs, x.exchangeKeys(javaPerftestDest()), "second barrier: the client now runs");
                save(info, x.transcript());
                // no urdma engine yet: the client's WRITEs to 10.77.0.1 go unanswered; give it a few
                // seconds, then stop it (its output survives: the guest runs commands line-buffered)
                GuestResult r;
                try {
                    r = client.get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    guest.run("killall ib_write_bw", STEP);
                    r = client.get(STEP.toSeconds(), TimeUnit.SECONDS);
                }
                System.out.println("[interop] stock client after the exchange (no data path behind us):\n" + r);
                assertTrue(r.output().contains("QPN 0x0123 PSN 0xabcde RKey 0x1234abcd VAddr 0x007f0000010000"),
                        r.toString());
                assertNotEquals(0, r.exitCode(), "without a responder the client cannot succeed: " + r);
            }
        }
    }

    @Test
    void javaClientExchangesWithStockRcPingpongServer(TestInfo info) throws Exception {
        javaClientAgainstPingpongServer(info, "ibv_rc_pingpong");
    }

    @Test
    void javaClientExchangesWithStockUdPingpongServer(TestInfo info) throws Exception {
        javaClientAgainstPingpongServer(info, "ibv_ud_pingpong");
    }

    private void javaClientAgainstPingpongServer(TestInfo info, String tool) throws Exception {
        CompletableFuture<GuestResult> server = guest.start(tool + " -d rxe0 -g 1 -n 10");
        guest.awaitListening(PORT, STEP);
        PingpongDest mine = new PingpongDest(0, 0x000123, 0x0abcde, hostGid);
        try (SocketChannel ch = NetnsSockets.connect(fx.ns.name(), new InetSocketAddress(GUEST_IP, PORT))) {
            ch.socket().setSoTimeout(30_000);
            PingpongExchange x = new PingpongExchange(ch.socket().getInputStream(), ch.socket().getOutputStream());
            PingpongDest theirs = x.client(mine);
            save(info, x.transcript());
            checkGuestPingpong(theirs);
        }
        // the server now waits for SENDs that only an engine could make: stop it and read what it printed
        Thread.sleep(1000);
        guest.run("killall " + tool, STEP);
        GuestResult r = server.get(STEP.toSeconds(), TimeUnit.SECONDS);
        System.out.println("[interop] " + tool + " server after the exchange:\n" + r);
        assertTrue(r.output().contains("remote address: LID 0x0000, QPN 0x000123, PSN 0x0abcde, GID ::ffff:10.77.0.1"),
                r.toString());
    }

    @Test
    void stockRcPingpongClientExchangesWithJavaServer(TestInfo info) throws Exception {
        try (ServerSocketChannel listener = NetnsSockets.listen(fx.ns.name(),
                new InetSocketAddress(TwoGuestFixture.HOST_IP, PORT))) {
            CompletableFuture<GuestResult> client = guest.start("ibv_rc_pingpong -d rxe0 -g 1 -n 10 " + TwoGuestFixture.HOST_IP);
            try (SocketChannel ch = accept(listener)) {
                ch.socket().setSoTimeout(30_000);
                PingpongExchange x = new PingpongExchange(ch.socket().getInputStream(), ch.socket().getOutputStream());
                PingpongDest theirs = x.serverRead();
                checkGuestPingpong(theirs);
                x.serverReply(new PingpongDest(0, 0x000123, 0x0abcde, hostGid)); // includes the client's "done\0"
                save(info, x.transcript());
            }
            Thread.sleep(1000);
            guest.run("killall ibv_rc_pingpong", STEP);
            GuestResult r = client.get(STEP.toSeconds(), TimeUnit.SECONDS);
            System.out.println("[interop] ibv_rc_pingpong client after the exchange:\n" + r);
            assertTrue(r.output().contains("remote address: LID 0x0000, QPN 0x000123, PSN 0x0abcde, GID ::ffff:10.77.0.1"),
                    r.toString());
        }
    }

    private void checkGuestDest(PerftestDest d) {
        assertEquals(0, d.lid(), "RoCE has no LID");
        assertNotEquals(0, d.qpn(), "qpn");
        assertTrue(d.qpn() >= 0x11, "rxe QPNs start at 0x11: " + d);
        assertNotEquals(0, d.rkey(), "rkey");
        assertNotEquals(0L, d.vaddr(), "vaddr");
        assertEquals(0, d.vaddr() % 4096, "buffer is page aligned: " + d);
        assertArrayEquals(guestGid, d.gid(), "GID index 1 is ::ffff:" + GUEST_IP + ": " + d);
        assertEquals(0, d.srqn(), "no SRQ");
    }

    private void checkGuestPingpong(PingpongDest d) {
        assertEquals(0, d.lid(), "RoCE has no LID");
        assertTrue(d.qpn() >= 0x11, "rxe QPNs start at 0x11: " + d);
        assertArrayEquals(guestGid, d.gid(), "GID index 1 is ::ffff:" + GUEST_IP + ": " + d);
    }

    private static SocketChannel accept(ServerSocketChannel listener) throws IOException {
        listener.configureBlocking(true);
        listener.socket().setSoTimeout(60_000);
        try {
            return listener.socket().accept().getChannel();
        } catch (SocketTimeoutException e) {
            throw new IOException("the stock tool did not connect within 60 s", e);
        }
    }

    private static byte[] readToEof(InputStream in) throws IOException {
        try {
            return in.readAllBytes();
        } catch (java.net.SocketException e) {
            // the stock tool may close with a reset right after "done": that is a close too
            System.out.println("[interop] peer closed with: " + e.getMessage());
            return new byte[0];
        } catch (SocketTimeoutException e) {
            throw new ExchangeFormatException("peer kept the connection open after the close handshake");
        }
    }

    private void save(TestInfo info, Transcript t) throws IOException {
        if (t == null) {
            return;
        }
        String name = info.getTestMethod().map(m -> m.getName()).orElse("exchange");
        Files.writeString(out.resolve(name + ".txt"), t.toString(), StandardCharsets.UTF_8);
        System.out.println("[interop] transcript " + name + ":\n" + t);
    }
}
