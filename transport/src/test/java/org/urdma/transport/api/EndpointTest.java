package org.urdma.transport.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

class EndpointTest {
    private static final Duration T = Duration.ofSeconds(10);
    /** A thread per blocking task (the common pool may have one thread only). */
    private static final java.util.concurrent.Executor THREADS = r -> Thread.ofPlatform().daemon().start(r);

    @Test
    void acceptAndConnectGiveConnectedQpsThatCarryASendAndEachOthersPrivateData() throws Exception {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory());
             RdmaServer server = pair.first().listen(0)) {
            MemoryRegion target = pair.first().register(4096, AccessFlags.ALL);
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() ->
                    server.accept(EndpointOptions.defaults().withPrivateData(RemoteRegion.of(target).toBytes())), THREADS);
            try (RdmaConnection client = pair.second().connect("127.0.0.1", server.port(),
                    EndpointOptions.defaults().withPrivateData(new byte[] {1, 2, 3}));
                 RdmaConnection srv = accepted.get()) {
                assertEquals(QpState.RTS, client.qp().state());
                assertEquals(QpState.RTS, srv.qp().state());
                assertEquals(srv.qp().qpNum(), client.peerQpn());
                assertEquals(RemoteRegion.of(target), RemoteRegion.fromBytes(client.peerPrivateData()));
                assertArrayEquals(new byte[] {1, 2, 3}, srv.peerPrivateData());

                MemoryRegion in = pair.first().register(64, AccessFlags.LOCAL_WRITE);
                srv.qp().postRecv(new ReceiveWorkRequest().wrId(7).addSge(in, 0, 64));
                MemoryRegion out = pair.second().register(64, AccessFlags.LOCAL_WRITE);
                out.segment().set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
                client.qp().postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(out, 0, 8));
                assertEquals(WcOpcode.SEND, Completions.await(client.sendCq(), T).opcode());
                WorkCompletion wc = Completions.await(srv.recvCq(), T);
                assertEquals(7, wc.wrId());
                assertEquals(8, wc.byteLen());
                assertEquals(0x1122334455667788L, in.segment().get(ValueLayout.JAVA_LONG, 0));
                CompletableFuture<Void> serverDone = CompletableFuture.runAsync(() -> srv.barrier("done", T), THREADS);
                client.barrier("done", T);
                serverDone.get();
            }
        }
    }

    /** Inline drivers run each engine only inside its application's polls: one thread polling both sides' CQs suffices. */
    @Test
    void inlineDriversProgressInsideCqPolls() throws Exception {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory().withDriver(DeviceOptions.Driver.INLINE));
             RdmaServer server = pair.first().listen(0)) {
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> server.accept(EndpointOptions.defaults()), THREADS);
            try (RdmaConnection client = pair.second().connect("127.0.0.1", server.port(), EndpointOptions.defaults());
                 RdmaConnection srv = accepted.get()) {
                MemoryRegion in = pair.first().register(64, AccessFlags.LOCAL_WRITE);
                MemoryRegion out = pair.second().register(64, AccessFlags.LOCAL_WRITE);
                srv.qp().postRecv(new ReceiveWorkRequest().wrId(7).addSge(in, 0, 64));
                client.qp().postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(out, 0, 16));
                WorkCompletion[] wc = {new WorkCompletion()};
                boolean sent = false, received = false;
                long deadline = System.nanoTime() + T.toNanos();
                while (!(sent && received) && System.nanoTime() < deadline) {
                    sent |= client.sendCq().poll(wc, 1) == 1;
                    received |= srv.recvCq().poll(wc, 1) == 1;
                }
                assertTrue(sent && received, "sent " + sent + ", received " + received);
                assertTrue(pair.first().describe().contains("inline"), pair.first().describe());
            }
        }
    }

    @Test
    void ucConnectionsAreConnectedToo() throws Exception {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory());
             RdmaServer server = pair.first().listen(0)) {
            EndpointOptions uc = EndpointOptions.defaults().withType(QpType.UC);
            CompletableFuture<RdmaConnection> accepted = CompletableFuture.supplyAsync(() -> server.accept(uc), THREADS);
            try (RdmaConnection client = pair.second().connect("127.0.0.1", server.port(), uc);
                 RdmaConnection srv = accepted.get()) {
                assertEquals(QpType.UC, client.qp().type());
                assertEquals(QpState.RTS, srv.qp().state());
            }
        }
    }

    @Test
    void connectingWhereNobodyListensFailsWithinTheTimeoutNamingTheAddress() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            long t0 = System.nanoTime();
            RdmaConnectException e = assertThrows(RdmaConnectException.class, () -> pair.second().connect("127.0.0.1", port,
                    EndpointOptions.defaults().withTimeout(Duration.ofMillis(400))));
            assertTrue(System.nanoTime() - t0 < 30_000_000_000L, "gave up, not hung"); // a loaded machine may end it late
            assertTrue(e.getMessage().startsWith("connect to 127.0.0.1:" + port + ": "), e.getMessage());
            assertTrue(e.getMessage().contains("within 400 ms"), e.getMessage());
        }
    }

    @Test
    void acceptWithoutAClientTimesOut() {
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory());
             RdmaServer server = pair.first().listen(0)) {
            RdmaConnectException e = assertThrows(RdmaConnectException.class,
                    () -> server.accept(EndpointOptions.defaults().withTimeout(Duration.ofMillis(200))));
            assertTrue(e.getMessage().contains("no client connected"), e.getMessage());
        }
    }

    @Test
    void aPeerThatClosesDuringTheExchangeIsNamed() throws Exception {
        try (ServerSocket s = new ServerSocket(0);
             Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            Thread closer = Thread.ofVirtual().start(() -> {
                try (Socket c = s.accept()) {
                    c.getInputStream().read(new byte[8]); // takes part of the client's message, then goes away
                } catch (Exception ignored) {
                }
            });
            RdmaConnectException e = assertThrows(RdmaConnectException.class, () -> pair.second().connect("127.0.0.1",
                    s.getLocalPort(), EndpointOptions.defaults().withTimeout(Duration.ofSeconds(30))));
            assertTrue(e.getMessage().contains("closed the connection"), e.getMessage());
            closer.join();
        }
    }

    @Test
    void badOptionsAreRefusedNamingTheOption() {
        assertEquals("link: memory, afpacket:IF or tap:IF, was 'eth0'",
                assertThrows(IllegalArgumentException.class, () -> DeviceOptions.memory().withLink("eth0")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Urdma.open(DeviceOptions.memory()))
                .getMessage().startsWith("link: "));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EndpointOptions.defaults().withDepth(0))
                .getMessage().startsWith("depth: "));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EndpointOptions.defaults().withPrivateData(new byte[2000]))
                .getMessage().startsWith("privateData: "));
    }
}
