package org.urdma.express.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.urdma.express.protocol.MalformedMessageException;
import org.urdma.express.protocol.Message;
import org.urdma.express.session.ConnectionLostException;
import org.urdma.express.session.ControlChannel;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;

class TcpChannelTest {
    private static final int WINDOW = 64 * 1024;

    /** What one side's channel handed over: messages, and the window's bytes as each message arrived. */
    private static final class Inbox implements ControlChannel.Handler {
        final List<Message> messages = new ArrayList<>();
        final List<byte[]> windowAtMessage = new ArrayList<>();
        final List<Long> written = new ArrayList<>();
        MemoryRegion window;

        @Override
        public void onMessage(Message m) {
            messages.add(m);
            if (m instanceof Message.Resend r && window != null) {
                windowAtMessage.add(window.segment().asSlice((long) r.block() * WINDOW, WINDOW).toArray(ValueLayout.JAVA_BYTE));
            }
        }

        @Override
        public void onWriteDone(long token) {
            written.add(token);
        }
    }

    private static TcpChannel accept(TcpListener l) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            ControlChannel c = l.accept();
            if (c != null) return (TcpChannel) c;
        }
        throw new AssertionError("no session within 10 s");
    }

    private static void pumpUntil(BooleanSupplier done) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("not done within 10 s");
            Thread.onSpinWait();
        }
    }

    @Test
    void writesArePlacedInTheGrantedWindowBeforeTheirMessageAndGoOverEveryStream() {
        try (TcpListener l = new TcpListener(0, 0, w -> { });
             TcpChannel client = TcpConnector.connect("127.0.0.1", l.port(), TcpOptions.defaults().withStreams(3), new byte[] {0}, Duration.ofSeconds(5));
             TcpChannel server = accept(l)) {
            Inbox atServer = new Inbox();
            Inbox atClient = new Inbox();
            atServer.window = server.memory().register(8L * WINDOW, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            MemoryRegion source = client.memory().register(8L * WINDOW, AccessFlags.LOCAL_WRITE);
            byte[] bytes = new byte[8 * WINDOW];
            new java.util.Random(3).nextBytes(bytes);
            source.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(bytes));
            for (int i = 0; i < 8; i++) {
                client.sendAfterWrite(source, (long) i * WINDOW, WINDOW, atServer.window.address() + (long) i * WINDOW, atServer.window.rkey(),
                        new Message.Resend(1, i, false), 100 + i);
            }
            pumpUntil(() -> {
                server.pump(atServer);
                client.pump(atClient);
                return atServer.messages.size() == 8 && atClient.written.size() == 8;
            });
            for (int i = 0; i < 8; i++) {
                int block = ((Message.Resend) atServer.messages.get(i)).block();
                assertArrayEquals(Arrays.copyOfRange(bytes, block * WINDOW, (block + 1) * WINDOW), atServer.windowAtMessage.get(i), "window " + block);
            }
            assertEquals(List.of(100L, 101L, 102L, 103L, 104L, 105L, 106L, 107L), atClient.written.stream().sorted().toList());
            assertTrue(Arrays.stream(client.bytesPerStream()).allMatch(b -> b >= WINDOW), Arrays.toString(client.bytesPerStream()));
            assertTrue(!client.busy(), "every frame written");
        }
    }

    @Test
    void aWriteIntoAWindowNeverGrantedIsAMalformedMessageAndAClosedPeerALostConnection() {
        try (TcpListener l = new TcpListener(0, 0, w -> { })) {
            TcpChannel client = TcpConnector.connect("127.0.0.1", l.port(), TcpOptions.defaults(), new byte[] {0}, Duration.ofSeconds(5));
            try (TcpChannel server = accept(l)) {
                MemoryRegion source = client.memory().register(WINDOW, AccessFlags.LOCAL_WRITE);
                client.sendAfterWrite(source, 0, WINDOW, 0x1000, 77, new Message.End(), 1);
                Inbox in = new Inbox();
                MalformedMessageException e = assertThrows(MalformedMessageException.class, () -> pumpUntil(() -> server.pump(in) < 0));
                assertTrue(e.getMessage().contains("a write of 65536 bytes at 0x1000 names no window this side granted"), e.getMessage());
            }
            client.close();
        }
        try (TcpListener l = new TcpListener(0, 0, w -> { })) {
            TcpChannel client = TcpConnector.connect("127.0.0.1", l.port(), TcpOptions.defaults(), new byte[] {0}, Duration.ofSeconds(5));
            try (TcpChannel server = accept(l)) {
                client.close();
                ConnectionLostException e = assertThrows(ConnectionLostException.class, () -> pumpUntil(() -> server.pump(new Inbox()) < 0));
                assertEquals("connection: closed by the peer", e.getMessage());
            }
        }
    }

    @Test
    void aCongestionControlTheServerCannotSetAndBytesThatAreNoHandshakeAreRefusedAndTheListenerGoesOn() throws Exception {
        List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (TcpListener l = new TcpListener(0, 0, log::add)) {
            try (SocketChannel s = SocketChannel.open(new InetSocketAddress("127.0.0.1", l.port()))) {
                new TcpHandshake(1, 0, "warp", new byte[TcpHandshake.NONCE], new byte[] {0}).write(s);
                String refusal = TcpHandshake.readAnswer(s, 5000);
                assertTrue(refusal != null && refusal.startsWith("--cc warp at the server: ") && !refusal.contains("\n"), refusal);
            }
            try (SocketChannel s = SocketChannel.open(new InetSocketAddress("127.0.0.1", l.port()))) {
                s.write(java.nio.ByteBuffer.wrap("GET / HTTP/1.0\r\n\r\n".getBytes()));
                int n;
                try {
                    n = s.read(java.nio.ByteBuffer.allocate(16));
                } catch (java.net.SocketException e) {
                    n = -1; // reset: the server closed with the client's bytes unread
                }
                assertEquals(-1, n, "closed without an answer");
            }
            try (TcpChannel client = TcpConnector.connect("127.0.0.1", l.port(), TcpOptions.defaults(), new byte[] {0}, Duration.ofSeconds(5));
                 TcpChannel server = accept(l)) {
                assertTrue(server.transport().startsWith("tcp cc="), server.transport());
            }
            assertTrue(log.stream().anyMatch(m -> m.contains("not an urdma copy over TCP")), log.toString());
        }
    }
}
