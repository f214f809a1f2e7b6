package org.urdma.express;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.express.progress.TransferCounters;
import org.urdma.express.receiver.ReceiverHooks;
import org.urdma.express.receiver.Server;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.impair.ImpairmentConfig;

class IntegrityAndResumeTest {
    static final int BLOCK = 256 * 1024;
    static final long MEM = 1L << 20;

    @TempDir
    Path tmp;

    @Test
    void aBlockCorruptedAfterPlacementIsDetectedReRequestedAndCounted() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.write(src.resolve("big"), TestTrees.random(5 * BLOCK + 123, 9));
        AtomicBoolean once = new AtomicBoolean();
        ReceiverHooks corrupt = (path, block, placed) -> {
            if (path.equals("src/big") && block == 2 && once.compareAndSet(false, true)) placed.put(100, (byte) (placed.get(100) ^ 0x40));
        };
        Path dst = tmp.resolve("dst");
        CopyResult r = Copier.local(List.of(src), dst, LocalCopyTest.SMALL, LocalCopyTest.serve(dst).withHooks(corrupt), ImpairmentConfig.none(), 3,
                new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertTrue(once.get(), "the seam ran");
        assertEquals(1, r.repaired(), "the server counted the block it re-requested");
        assertEquals(1, r.resentBlocks(), "the client sent it once more");
        assertArrayEquals(Files.readAllBytes(src.resolve("big")), Files.readAllBytes(dst.resolve("src/big")));
    }

    @Test
    void aFileLargerThanEitherSidesMemoryCopiesThroughTheBoundedRing() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.write(src.resolve("huge"), TestTrees.random(9 << 20, 10));
        Path dst = tmp.resolve("dst");
        CopyOptions o = LocalCopyTest.SMALL.withMem(MEM).withVerifyReread(true);
        CopyResult r = Copier.local(List.of(src), dst, o, LocalCopyTest.serve(dst).withMem(MEM), ImpairmentConfig.none(), 3, new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertArrayEquals(Files.readAllBytes(src.resolve("huge")), Files.readAllBytes(dst.resolve("src/huge")));
    }

    static Path resumeTree(Path tmp) throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.write(src.resolve("a"), TestTrees.random(6 << 20, 11));
        Files.write(src.resolve("b"), TestTrees.random(3 << 20, 12));
        for (int i = 0; i < 20; i++) Files.write(src.resolve("s" + i), TestTrees.random(5000, 13 + i));
        return src;
    }

    static long bound(int files) {
        return MEM + (long) BLOCK * files; // the in-flight window plus one block per file
    }

    @Test
    void aCopyWhoseSenderStopsMidwayResumesAndResendsAtMostTheWindowPlusABlockPerFile() throws Exception {
        Path src = resumeTree(tmp);
        long total = 9L << 20 | 20 * 5000;
        Path dst = tmp.resolve("dst");
        CopyOptions o = LocalCopyTest.SMALL.withMem(MEM);
        Files.createDirectories(dst);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory()); Server s = new Server(pair.first(), 0, LocalCopyTest.serve(dst).withMem(MEM), w -> { })) {
            Files.createDirectories(dst);
            TransferCounters first = new TransferCounters();
            CopyResult r1 = Copier.push(pair.second(), "127.0.0.1", s.port(), List.of(src), "", o.withAbortAfterBytes(4L << 20), 0, first, w -> { });
            assertEquals(CopyResult.EXIT_PARTIAL, r1.exitCode(), r1.line());
            TransferCounters second = new TransferCounters();
            CopyResult r2 = Copier.push(pair.second(), "127.0.0.1", s.port(), List.of(src), "", o, 3, second, w -> { });
            assertEquals(CopyResult.EXIT_OK, r2.exitCode(), r2.line());
            long resent = first.bytesSent.get() + second.bytesSent.get() - (9L << 20) - 20 * 5000;
            assertTrue(second.bytesSent.get() < total, "the rerun skipped durable blocks: it sent " + second.bytesSent.get());
            assertTrue(resent <= bound(22), "resent " + resent + " bytes, more than the window plus a block per file");
        }
        TestTrees.assertSameTree(src, dst.resolve("src"));
    }

    /** {@return a seam that kills {@code server[0]} once twelve blocks were placed, as kill -9 would, and then completes {@code killed}} */
    static ReceiverHooks killAtTwelfthBlock(Server[] server, CompletableFuture<Void> killed) {
        AtomicInteger placed = new AtomicInteger();
        return (path, block, bytes) -> {
            if (placed.incrementAndGet() == 12) Thread.ofPlatform().daemon().start(() -> {
                server[0].kill();
                killed.complete(null);
            });
        };
    }

    @Test
    void aCopyWhoseServerIsKilledMidwayResumesOnANewServer() throws Exception {
        Path src = resumeTree(tmp);
        Path dst = tmp.resolve("dst");
        Files.createDirectories(dst);
        CopyOptions o = LocalCopyTest.SMALL.withMem(MEM).withTimeout(java.time.Duration.ofSeconds(5));
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory())) {
            CompletableFuture<Void> killed = new CompletableFuture<>();
            Server[] s = new Server[1];
            ReceiverHooks killAtTwelve = killAtTwelfthBlock(s, killed);
            s[0] = new Server(pair.first(), 0, LocalCopyTest.serve(dst).withMem(MEM).withHooks(killAtTwelve), w -> { });
            TransferCounters first = new TransferCounters();
            CopyResult r1 = Copier.push(pair.second(), "127.0.0.1", s[0].port(), List.of(src), "", o, 0, first, w -> { });
            killed.join();
            assertEquals(CopyResult.EXIT_PARTIAL, r1.exitCode(), r1.line());
            try (Server again = new Server(pair.first(), 0, LocalCopyTest.serve(dst).withMem(MEM), w -> { })) {
                TransferCounters second = new TransferCounters();
                CopyResult r2 = Copier.push(pair.second(), "127.0.0.1", again.port(), List.of(src), "", LocalCopyTest.SMALL.withMem(MEM), 3, second,
                        w -> { });
                assertEquals(CopyResult.EXIT_OK, r2.exitCode(), r2.line());
                long resent = first.bytesSent.get() + second.bytesSent.get() - (9L << 20) - 20 * 5000;
                assertTrue(resent <= bound(22) + MEM, "resent " + resent + " bytes, more than both windows plus a block per file");
            }
        }
        TestTrees.assertSameTree(src, dst.resolve("src"));
    }
}
