package org.urdma.transport.cm.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Our client against our server over real loopback TCP: every step completes in the tools' order. */
class ExchangeRolesTest {

    @Test
    void perftestClientAndServerCompleteAWriteBwExchange() throws Exception {
        PerftestDest serverDest = new PerftestDest(0, 0, 0x11, 0x123456, 0x1a2b, 0x7f0000001000L,
                PerftestKeysTest.gid("10.77.0.11"), 0);
        PerftestDest clientDest = new PerftestDest(0, 0, 0x12, 0x654321, 0x3c4d, 0x7f0000002000L,
                PerftestKeysTest.gid("10.77.0.12"), 0);
        PerftestBwReport clientReport = new PerftestBwReport(65536, 50, 100.5, 90.25, 0.0014);
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<PerftestExchange> server = CompletableFuture.supplyAsync(() -> {
                try (Socket s = ss.accept()) {
                    s.setSoTimeout(10_000);
                    PerftestExchange x = new PerftestExchange(Role.SERVER, s.getInputStream(), s.getOutputStream());
                    assertEquals("6.06", x.exchangeVersion("6.06"));
                    assertEquals(new PerftestSysData(4096, 64), x.exchangeSysData(new PerftestSysData(4096, 64)));
                    assertEquals(3, x.exchangeMtu(5));
                    assertEquals(clientDest, x.exchangeKeys(serverDest));
                    x.exchangeKeys(serverDest); // barriers after RTR
                    x.exchangeKeys(serverDest);
                    x.exchangeKeys(serverDest); // barrier after the run
                    assertEquals(clientReport, PerftestBwReport.decode(x.exchangeBwReport(new PerftestBwReport(0, 0, 0, 0, 0))));
                    x.exchangeKeys(serverDest); // close
                    x.exchangeDone();
                    return x;
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (Socket c = new Socket(ss.getInetAddress(), ss.getLocalPort())) {
                c.setSoTimeout(10_000);
                PerftestExchange x = new PerftestExchange(Role.CLIENT, c.getInputStream(), c.getOutputStream());
                x.exchangeVersion("6.06");
                x.exchangeSysData(new PerftestSysData(4096, 64));
                assertEquals(5, x.exchangeMtu(3));
                assertEquals(serverDest, x.exchangeKeys(clientDest));
                x.exchangeKeys(clientDest);
                x.exchangeKeys(clientDest);
                x.exchangeKeys(clientDest);
                x.exchangeBwReport(clientReport);
                x.exchangeKeys(clientDest);
                x.exchangeDone();
                int sent = x.transcript().entries().stream().filter(Transcript.Entry::sent)
                        .mapToInt(e -> e.bytes().length).sum();
                assertEquals(16 + 4 + 4 + 2 + 5 * 108 + 40 + 5, sent);
            }
            PerftestExchange sx = server.get(20, TimeUnit.SECONDS);
            assertTrue(sx.transcript().entries().get(0).toString().startsWith("<- version"));
        }
    }

    @Test
    void serverReadsFirstAndClientWritesFirst() throws Exception {
        byte[] peer = PerftestVersion.encode("6.06");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PerftestExchange server = new PerftestExchange(Role.SERVER, new ByteArrayInputStream(peer), out);
        server.exchangeVersion("6.06");
        assertEquals(false, server.transcript().entries().get(0).sent());
        PerftestExchange client = new PerftestExchange(Role.CLIENT, new ByteArrayInputStream(peer), out);
        client.exchangeVersion("6.06");
        assertEquals(true, client.transcript().entries().get(0).sent());
    }

    @Test
    void refusesOldPeerAndTruncatedStream() {
        PerftestExchange old = new PerftestExchange(Role.CLIENT,
                new ByteArrayInputStream(PerftestVersion.encode("5.60")), new ByteArrayOutputStream());
        ExchangeFormatException e = assertThrows(ExchangeFormatException.class, () -> old.exchangeVersion("6.06"));
        assertTrue(e.getMessage().contains("5.60"), e.getMessage());
        PerftestExchange cut = new PerftestExchange(Role.CLIENT, new ByteArrayInputStream(new byte[50]),
                new ByteArrayOutputStream());
        assertThrows(EOFException.class, () -> cut.exchangeKeys(new PerftestDest(0, 0, 1, 1, 1, 1, new byte[16], 0)));
    }

    @Test
    void pingpongClientAndServerExchangeAndFinishWithDone() throws Exception {
        PingpongDest a = new PingpongDest(0, 0x11, 0xabc, PerftestKeysTest.gid("10.77.0.11"));
        PingpongDest b = new PingpongDest(0, 0x12, 0xdef, PerftestKeysTest.gid("10.77.0.12"));
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<PingpongDest> server = CompletableFuture.supplyAsync(() -> {
                try (Socket s = ss.accept()) {
                    PingpongExchange x = new PingpongExchange(s.getInputStream(), s.getOutputStream());
                    PingpongDest got = x.serverRead();
                    x.serverReply(a);
                    return got;
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (Socket c = new Socket(ss.getInetAddress(), ss.getLocalPort())) {
                assertEquals(a, new PingpongExchange(c.getInputStream(), c.getOutputStream()).client(b));
            }
            assertEquals(b, server.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void pingpongServerRejectsSomethingElseThanDone() throws Exception {
        byte[] in = new byte[52 + 5];
        System.arraycopy(PingpongMessage.encode(new PingpongDest(0, 1, 1, new byte[16])), 0, in, 0, 52);
        System.arraycopy("DONE\0".getBytes(), 0, in, 52, 5);
        PingpongExchange x = new PingpongExchange(new ByteArrayInputStream(in), new ByteArrayOutputStream());
        x.serverRead();
        assertThrows(ExchangeFormatException.class, () -> x.serverReply(new PingpongDest(0, 2, 2, new byte[16])));
    }
}
