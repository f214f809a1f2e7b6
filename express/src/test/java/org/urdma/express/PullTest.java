package org.urdma.express;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.express.progress.TransferCounters;
import org.urdma.express.receiver.Server;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.impair.ImpairmentConfig;

/** urdma copy HOST:SRC DST: the server sends what lies under its root, and only that. */
class PullTest {
    @TempDir
    Path tmp;

    private static CopyResult pull(Urdma.MemoryPair pair, Server s, String source, Path dst) throws Exception {
        return Copier.pull(pair.second(), "127.0.0.1", s.port(), List.of(source), dst, LocalCopyTest.SMALL, 3, new TransferCounters(), w -> { });
    }

    @Test
    void aTreeUnderTheServedRootIsPulledOverALossyReorderingLinkAndVerified() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        Path src = TestTrees.mixed(root, 50, 2 << 20);
        Path dst = tmp.resolve("dst");
        ImpairmentConfig imp = ImpairmentConfig.random(0.01, 0, 0.05, 7);
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory(), imp, imp);
             Server s = new Server(pair.first(), 0, LocalCopyTest.serve(root), w -> { })) {
            CopyResult r = pull(pair, s, root.relativize(src).toString(), dst);
            assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line() + " " + r.failures());
            assertTrue(r.filesVerified() > 50, r.line());
        }
        TestTrees.assertSameTree(src, dst.resolve(src.getFileName()));
        assertTrue(Files.notExists(dst.resolve(".urdma-part")), "the part directory is gone once every file is in place");
    }

    @Test
    void aPullOfAPathOutsideTheRootIsRefusedByNameAndTheServerGoesOnServing() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "no");
        Files.createSymbolicLink(root.resolve("out"), outside);
        Files.createDirectories(root.resolve("ok"));
        Files.writeString(root.resolve("ok/f"), "yes");
        Path dst = tmp.resolve("dst");
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory()); Server s = new Server(pair.first(), 0, LocalCopyTest.serve(root), w -> { })) {
            assertTrue(refusal(pair, s, "../outside", dst).contains("'..' would leave the root"));
            assertTrue(refusal(pair, s, outside.toString(), dst).contains("absolute"));
            assertTrue(refusal(pair, s, "out/secret", dst).contains("symlink leading outside the root"));
            assertTrue(refusal(pair, s, "missing", dst).contains("no such file"));
            CopyResult r = pull(pair, s, "ok", dst);
            assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        }
        assertEquals("yes", Files.readString(dst.resolve("ok/f")));
        assertTrue(Files.notExists(dst.resolve("secret")) && Files.notExists(dst.resolve("outside")), "nothing from outside the root arrived");
    }

    private static String refusal(Urdma.MemoryPair pair, Server s, String source, Path dst) {
        String m = assertThrows(IllegalStateException.class, () -> pull(pair, s, source, dst)).getMessage();
        assertTrue(m.startsWith("server: ") && !m.contains("\n"), m);
        return m;
    }
}
