package org.urdma.express;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.express.progress.TransferCounters;
import org.urdma.express.receiver.ReceiverHooks;
import org.urdma.express.receiver.Server;
import org.urdma.express.tcp.TcpListener;
import org.urdma.express.tcp.TcpOptions;

/** The same copy over kernel TCP on loopback: the file, hash, journal and commit code of the RDMA path, another transport. */
class TcpCopyTest {
    @TempDir
    Path tmp;

    private static Server tcpServer(ServeOptions so) throws Exception {
        return new Server(List.of(new TcpListener(0, 0, w -> { })), so, w -> { });
    }

    @Test
    void aMixedTreeCopiesOverLoopbackTcpWithEveryByteModeLinkAndHoleInPlace() throws Exception {
        Path src = TestTrees.mixed(tmp, 100, 3 << 20);
        Path dst = tmp.resolve("dst");
        CopyResult r = Copier.localTcp(List.of(src), dst, LocalCopyTest.SMALL, LocalCopyTest.serve(dst), TcpOptions.defaults().withCongestion("reno"), 0,
                new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line() + " " + r.failures());
        assertEquals("tcp cc=reno streams=1", r.transport());
        TestTrees.assertSameTree(src, dst.resolve("src"));
        assertTrue(Files.notExists(dst.resolve(".urdma-part")), "the part directory is gone once every file is in place");
        assertTrue(TestTrees.allocated(dst.resolve("src/sparse.img")) < 1L << 20, "the sparse file stays sparse");
        assertTrue(r.hashesVerified() > 100, "every block was hashed at the destination: " + r.hashesVerified());
    }

    @Test
    void fourStreamsCarryOneCopyAndTheSummaryNamesThem() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.write(src.resolve("big"), TestTrees.random(7 << 20, 21));
        for (int i = 0; i < 30; i++) Files.write(src.resolve("s" + i), TestTrees.random(3000 + i, 22 + i));
        Path dst = tmp.resolve("dst");
        CopyResult r = Copier.localTcp(List.of(src), dst, LocalCopyTest.SMALL, LocalCopyTest.serve(dst), TcpOptions.defaults().withStreams(4), 0,
                new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertTrue(r.transport().startsWith("tcp cc=") && r.transport().endsWith(" streams=4"), r.transport());
        TestTrees.assertSameTree(src, dst.resolve("src"));
    }

    @Test
    void aTcpCopyWhoseSenderStopsMidwayResumesAndResendsAtMostTheWindowPlusABlockPerFile() throws Exception {
        Path src = IntegrityAndResumeTest.resumeTree(tmp);
        long total = (9L << 20) + 20 * 5000;
        Path dst = Files.createDirectories(tmp.resolve("dst"));
        CopyOptions o = LocalCopyTest.SMALL.withMem(IntegrityAndResumeTest.MEM);
        TcpOptions t = TcpOptions.defaults().withStreams(2);
        try (Server s = tcpServer(LocalCopyTest.serve(dst).withMem(IntegrityAndResumeTest.MEM))) {
            TransferCounters first = new TransferCounters();
            CopyResult r1 = Copier.push(Copier.tcp("127.0.0.1", s.port(), t, o), List.of(src), "", o.withAbortAfterBytes(4L << 20), 0, first, w -> { });
            assertEquals(CopyResult.EXIT_PARTIAL, r1.exitCode(), r1.line());
            TransferCounters second = new TransferCounters();
            CopyResult r2 = Copier.push(Copier.tcp("127.0.0.1", s.port(), t, o), List.of(src), "", o, 3, second, w -> { });
            assertEquals(CopyResult.EXIT_OK, r2.exitCode(), r2.line());
            long resent = first.bytesSent.get() + second.bytesSent.get() - total;
            assertTrue(second.bytesSent.get() < total, "the rerun skipped durable blocks: it sent " + second.bytesSent.get());
            assertTrue(resent <= IntegrityAndResumeTest.bound(22), "resent " + resent + " bytes, more than the window plus a block per file");
        }
        TestTrees.assertSameTree(src, dst.resolve("src"));
    }

    @Test
    void aTcpCopyWhoseServerIsKilledMidwayResumesOnANewServer() throws Exception {
        Path src = IntegrityAndResumeTest.resumeTree(tmp);
        long total = (9L << 20) + 20 * 5000;
        Path dst = Files.createDirectories(tmp.resolve("dst"));
        CopyOptions o = LocalCopyTest.SMALL.withMem(IntegrityAndResumeTest.MEM).withTimeout(java.time.Duration.ofSeconds(5));
        CompletableFuture<Void> killed = new CompletableFuture<>();
        Server[] s = new Server[1];
        ReceiverHooks killAtTwelve = IntegrityAndResumeTest.killAtTwelfthBlock(s, killed);
        s[0] = tcpServer(LocalCopyTest.serve(dst).withMem(IntegrityAndResumeTest.MEM).withHooks(killAtTwelve));
        TransferCounters first = new TransferCounters();
        CopyResult r1 = Copier.push(Copier.tcp("127.0.0.1", s[0].port(), TcpOptions.defaults(), o), List.of(src), "", o, 0, first, w -> { });
        killed.join();
        assertEquals(CopyResult.EXIT_PARTIAL, r1.exitCode(), r1.line());
        try (Server again = tcpServer(LocalCopyTest.serve(dst).withMem(IntegrityAndResumeTest.MEM))) {
            TransferCounters second = new TransferCounters();
            CopyResult r2 = Copier.push(Copier.tcp("127.0.0.1", again.port(), TcpOptions.defaults(), o), List.of(src), "", o, 3, second, w -> { });
            assertEquals(CopyResult.EXIT_OK, r2.exitCode(), r2.line());
            long resent = first.bytesSent.get() + second.bytesSent.get() - total;
            assertTrue(resent <= IntegrityAndResumeTest.bound(22) + IntegrityAndResumeTest.MEM, "resent " + resent + " bytes, more than both windows plus a block per file");
        }
        TestTrees.assertSameTree(src, dst.resolve("src"));
    }

    @Test
    void aTreeIsPulledOverTcpAndAWrongTokenIsRefusedInOneLine() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        Path src = TestTrees.mixed(root, 20, 1 << 20);
        Path dst = tmp.resolve("dst");
        byte[] token = "secret".getBytes();
        try (Server s = tcpServer(LocalCopyTest.serve(root).withToken(token))) {
            Copier.Connector wrong = Copier.tcp("127.0.0.1", s.port(), TcpOptions.defaults(), LocalCopyTest.SMALL.withToken("other".getBytes()));
            String m = assertThrows(IllegalStateException.class, () -> Copier.pull(wrong, List.of("src"), dst, LocalCopyTest.SMALL, 0,
                    new TransferCounters(), w -> { })).getMessage();
            assertEquals("server: token: the client's HMAC does not match this server's token", m);
            CopyOptions o = LocalCopyTest.SMALL.withToken(token);
            CopyResult r = Copier.pull(Copier.tcp("127.0.0.1", s.port(), TcpOptions.defaults().withStreams(3), o), List.of("src"), dst, o, 0,
                    new TransferCounters(), w -> { });
            assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line() + " " + r.failures());
            assertTrue(r.transport().endsWith("streams=3"), r.transport());
        }
        TestTrees.assertSameTree(src, dst.resolve("src"));
    }
}
