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

    @Test
    void aReferenceRateIsOfferedToTheServerAndTheConnectionRunsRrccAtIt() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.write(src.resolve("f"), TestTrees.random(300_000, 5));
        Path dst = tmp.resolve("dst");
        CopyResult r = Copier.local(List.of(src), dst, SMALL.withRate(400_000_000L), serve(dst), ImpairmentConfig.none(), 3, new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertTrue(r.transport().contains("sack") && r.transport().contains("cc=rrcc,ref=400000000"), r.transport());
    }

    @Test
    void aCapIsOfferedToTheServerAndTheConnectionRunsRrccUnderIt() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.write(src.resolve("f"), TestTrees.random(300_000, 5));
        Path dst = tmp.resolve("dst");
        CopyResult r = Copier.local(List.of(src), dst, SMALL.withRate(400_000_000L).withMaxRate(900_000_000L), serve(dst), ImpairmentConfig.none(), 3,
                new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertTrue(r.transport().contains("cc=rrcc,ref=400000000,max=900000000"), r.transport());
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> SMALL.withRate(400_000_000L).withMaxRate(1000));
        assertEquals("--max-rate: at least --rate (400000000 bit/s), was 1000 bit/s", e.getMessage());
    }

    @Test
    void aSparseFileSendsOnlyItsDataExtentsAndStaysSparse() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        TestTrees.sparse(src.resolve("disk.img"), 64L << 20, 64 * 1024);
        Path dst = tmp.resolve("dst");
        CopyResult r = Copier.local(List.of(src), dst, SMALL, serve(dst), ImpairmentConfig.none(), 3, new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertTrue(r.bytesSent() <= 4 * SMALL.blockSize(), "only the blocks holding data travel: " + r.bytesSent() + " bytes sent");
        assertEquals(64L << 20, Files.size(dst.resolve("src/disk.img")));
        assertTrue(TestTrees.allocated(dst.resolve("src/disk.img")) < 1L << 20, "allocated " + TestTrees.allocated(dst.resolve("src/disk.img")));
        assertTrue(java.util.Arrays.equals(Files.readAllBytes(src.resolve("disk.img")), Files.readAllBytes(dst.resolve("src/disk.img"))));
    }

    @Test
    void excludedNamesAndSpecialFilesAreLeftOutWithAWarning() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.write(src.resolve("keep"), TestTrees.random(10, 1));
        Files.write(src.resolve("scratch.tmp"), TestTrees.random(10, 2));
        Files.createDirectories(src.resolve("cache"));
        Files.write(src.resolve("cache/x"), TestTrees.random(10, 3));
        Process p = new ProcessBuilder("mkfifo", src.resolve("pipe").toString()).start();
        assertEquals(0, p.waitFor());
        List<String> warnings = new ArrayList<>();
        Path dst = tmp.resolve("dst");
        CopyResult r = Copier.local(List.of(src), dst, SMALL.withExcludes(List.of("*.tmp", "src/cache")), serve(dst), ImpairmentConfig.none(), 3,
                new TransferCounters(), warnings::add);
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertTrue(Files.exists(dst.resolve("src/keep")));
        assertTrue(Files.notExists(dst.resolve("src/scratch.tmp")));
        assertTrue(Files.notExists(dst.resolve("src/cache")));
        assertTrue(Files.notExists(dst.resolve("src/pipe"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertTrue(warnings.stream().anyMatch(w -> w.startsWith("skipped special file") && w.endsWith("pipe")), warnings.toString());
    }

    @Test
    void skipExistingSizeLeavesAFileOfTheSameSizeAlone() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.write(src.resolve("f"), TestTrees.random(1000, 1));
        Path dst = tmp.resolve("dst");
        Files.createDirectories(dst.resolve("src"));
        byte[] theirs = TestTrees.random(1000, 2);
        Files.write(dst.resolve("src/f"), theirs);
        CopyResult r = Copier.local(List.of(src), dst, SMALL.withSkipExistingSize(true), serve(dst), ImpairmentConfig.none(), 3,
                new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertEquals(0, r.bytesSent());
        assertTrue(java.util.Arrays.equals(theirs, Files.readAllBytes(dst.resolve("src/f"))));
    }

    @Test
    void aServerWithoutTheWanModeIsRefusedUnlessGoBackNIsAllowed() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.write(src.resolve("f"), TestTrees.random(1000, 1));
        Path dst = tmp.resolve("dst");
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> Copier.local(List.of(src), dst, SMALL,
                serve(dst).withWan(false), ImpairmentConfig.none(), 3, new TransferCounters(), w -> { }));
        assertTrue(e.getMessage().endsWith("does not agree on the WAN mode; --allow-gbn copies with go-back-N"), e.getMessage());
        assertTrue(Files.notExists(dst.resolve("src")), "nothing was copied");
        CopyResult r = Copier.local(List.of(src), dst, SMALL.withAllowGbn(true), serve(dst).withWan(false), ImpairmentConfig.none(), 3,
                new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertEquals("go-back-N", r.transport());
    }
}
