package org.urdma.express;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.express.progress.TransferCounters;
import org.urdma.transport.impair.ImpairmentConfig;

class LocalCopyTest {
    @TempDir
    Path tmp;

    static final CopyOptions SMALL = CopyOptions.defaults().withBlockSize(256 * 1024).withMem(2L << 20).withTimeout(java.time.Duration.ofSeconds(20));

    static ServeOptions serve(Path root) {
        return ServeOptions.under(root).withMem(2L << 20).withIdleTimeout(java.time.Duration.ofSeconds(5));
    }

    @Test
    void aMixedTreeCopiesOverALossyReorderingLinkAndSha256sumAgreesWithTheManifest() throws Exception {
        Path src = TestTrees.mixed(tmp, 200, 3 << 20);
        Path dst = tmp.resolve("dst");
        Path manifest = tmp.resolve("manifest.sha256");
        List<String> warnings = new ArrayList<>();
        CopyResult r = Copier.local(List.of(src), dst, SMALL.withManifest(manifest), serve(dst),
                ImpairmentConfig.random(0.01, 0, 0.05, 42), 3, new TransferCounters(), warnings::add);
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line() + " " + r.failures() + " " + warnings);
        TestTrees.assertSameTree(src, dst.resolve("src"));
        assertTrue(Files.notExists(dst.resolve(".urdma-part")), "the part directory is gone once every file is in place");
        Process p = new ProcessBuilder("sha256sum", "--strict", "-c", manifest.toString()).directory(dst.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        long regular;
        try (var files = Files.walk(src)) {
            regular = files.filter(f -> Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)).count();
        }
        assertEquals(regular, out.lines().filter(l -> l.endsWith(": OK")).count(), "one OK line per regular file: " + out);
        System.out.println(r.toJson());
        Path sparse = dst.resolve("src/sparse.img");
        assertEquals(8L << 20, Files.size(sparse));
        assertTrue(TestTrees.allocated(sparse) < 1L << 20, "the sparse file stays sparse: " + TestTrees.allocated(sparse) + " bytes allocated");
    }
}
