package org.urdma.express;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.express.progress.TransferCounters;
import org.urdma.express.protocol.Message;
import org.urdma.express.receiver.Server;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;

/** serve refuses what would write outside its root, a wrong token and a malformed message, each by name, and serves a correct client meanwhile. */
class ServeSafetyTest {
    static final byte[] TOKEN = "s3cret-token".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;
    Urdma.MemoryPair pair;
    Server server;
    Path root;

    @BeforeEach
    void start() throws Exception {
        root = Files.createDirectories(tmp.resolve("root"));
        Files.createDirectories(tmp.resolve("elsewhere"));
        Files.createSymbolicLink(root.resolve("out"), tmp.resolve("elsewhere"));
        pair = Urdma.memoryPair(DeviceOptions.memory());
        server = new Server(pair.first(), 0, LocalCopyTest.serve(root).withToken(TOKEN), line -> { });
    }

    @AfterEach
    void stop() {
        server.close();
        pair.close();
    }

    private static Message.Entry file(String path) {
        return new Message.Entry(1, Message.Kind.FILE, path, 10, 0644, 0, "");
    }

    private String refusal(Message.Entry e) {
        try (RawClient c = new RawClient(pair.second(), server.port(), TOKEN)) {
            c.send(new Message.Hello(1, "", 1 << 16, 0)).await(Message.Ready.class);
            Message.FileDone d = c.send(new Message.Files(List.of(e))).await(Message.FileDone.class);
            assertFalse(d.verified(), e.path() + " was accepted");
            assertFalse(d.reason().contains("\n"), "one line: " + d.reason());
            return d.reason();
        }
    }

    @Test
    void dotDotAbsoluteAndEscapingSymlinksAreRefusedByNameWhileACorrectClientCopies() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("good"));
        for (int i = 0; i < 50; i++) Files.write(src.resolve("f" + i), TestTrees.random(20_000, i));
        CompletableFuture<CopyResult> good = CompletableFuture.supplyAsync(() -> Copier.push(pair.second(), "127.0.0.1", server.port(), List.of(src), "",
                LocalCopyTest.SMALL.withToken(TOKEN), 3, new TransferCounters(), w -> { }), r -> Thread.ofPlatform().daemon().start(r));

        assertTrue(refusal(file("../x")).contains("'..' would leave the root"));
        assertTrue(refusal(file("/etc/passwd")).contains("absolute"));
        assertTrue(refusal(file("out/planted")).contains("'out' is a symlink leading outside the root"));
        assertTrue(refusal(new Message.Entry(1, Message.Kind.SYMLINK, "a/evil", 0, 0777, 0, "../../x")).contains("leads outside the root"));
        assertTrue(refusal(new Message.Entry(1, Message.Kind.SYMLINK, "evil", 0, 0777, 0, "/etc")).contains("absolute target"));
        try (var s = Files.list(tmp.resolve("elsewhere"))) {
            assertEquals(0, s.count(), "nothing written through the escaping symlink");
        }
        assertFalse(Files.exists(tmp.resolve("x")));

        CopyResult r = good.join();
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        TestTrees.assertSameTree(src, root.resolve("good"));
    }

    @Test
    void aClientThatClosesPartWayEndsItsSessionWithoutWaitingOutTheIdleTimeout() throws Exception {
        try (Server patient = new Server(pair.first(), 0, LocalCopyTest.serve(root).withIdleTimeout(java.time.Duration.ofSeconds(60)), line -> { })) {
            try (RawClient c = new RawClient(pair.second(), patient.port(), null)) {
                c.send(new Message.Hello(4, "", 1 << 16, 0)).await(Message.Ready.class);
            }
            long deadline = System.nanoTime() + 10_000_000_000L; // far below the 60 s idle timeout, far above a prompt end under load
            while (patient.sessionsEnded() == 0 && System.nanoTime() < deadline) Thread.sleep(10);
            assertEquals(1, patient.sessionsEnded(), "the session of a client that closed is still waiting");
        }
    }

    @Test
    void aWrongTokenIsRefusedWithOneLine() {
        try (RawClient c = new RawClient(pair.second(), server.port(), "guess".getBytes(StandardCharsets.UTF_8))) {
            Message.Error e = c.send(new Message.Hello(2, "", 1 << 16, 0)).await(Message.Error.class);
            assertEquals("token: the client's HMAC does not match this server's token", e.reason());
        }
        try (RawClient c = new RawClient(pair.second(), server.port(), null)) {
            assertTrue(c.send(new Message.Hello(3, "", 1 << 16, 0)).await(Message.Error.class).reason().contains("needs a token"));
        }
    }

    @Test
    void aMalformedControlMessageGetsItsReasonAndTheServerServesTheNextClient() throws Exception {
        try (RawClient c = new RawClient(pair.second(), server.port(), TOKEN)) {
            byte[] bad = {0x55, 0x59, 1, 1, 0, 0, 0, 8};
            assertEquals("malformed control message: magic 0x5559, expected 0x5558", c.sendRaw(bad).await(Message.Error.class).reason());
        }
        try (RawClient c = new RawClient(pair.second(), server.port(), TOKEN)) {
            byte[] truncated = {0x55, 0x58, 2, 4, 0, 0, 0, 11, 0, 1, 0};
            assertTrue(c.sendRaw(truncated).await(Message.Error.class).reason().startsWith("malformed control message: FILES.id needs 4 bytes"),
                    c.received.toString());
        }
        Path src = Files.createDirectories(tmp.resolve("after"));
        Files.write(src.resolve("f"), TestTrees.random(100_000, 5));
        CopyResult r = Copier.push(pair.second(), "127.0.0.1", server.port(), List.of(src), "", LocalCopyTest.SMALL.withToken(TOKEN), 3,
                new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
    }
}
