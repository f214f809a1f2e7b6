package org.urdma.express;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.express.progress.TransferCounters;
import org.urdma.transport.impair.ImpairmentConfig;

/** --skip-existing checksum: a target with the source's size and SHA-256 is left alone, one that differs gets only its differing blocks. */
class SkipExistingChecksumTest {
    @TempDir
    Path tmp;

    @Test
    void aMatchingTargetIsLeftAloneAndADifferingOneOfTheSameSizeIsMadeTheSourcesBySendingOnlyItsChangedBlock() throws Exception {
        int block = LocalCopyTest.SMALL.blockSize();
        Path src = Files.createDirectories(tmp.resolve("src"));
        byte[] same = TestTrees.random(3 * block + 100, 1);
        byte[] changed = TestTrees.random(4 * block, 2);
        Files.write(src.resolve("same"), same);
        Files.write(src.resolve("changed"), changed);
        Path dst = Files.createDirectories(tmp.resolve("dst/src"));
        Files.write(dst.resolve("same"), same);
        FileTime old = FileTime.fromMillis(1_000_000_000_000L);
        Files.setLastModifiedTime(dst.resolve("same"), old);
        byte[] theirs = changed.clone();
        theirs[2 * block + 7] ^= 1; // one bit in the third block: size-only would have kept it
        Files.write(dst.resolve("changed"), theirs);
        CopyResult r = Copier.local(List.of(src), tmp.resolve("dst"), LocalCopyTest.SMALL.withSkipExistingChecksum(true), LocalCopyTest.serve(tmp.resolve("dst")),
                ImpairmentConfig.none(), 3, new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertEquals(2, r.filesVerified() - 1, "both files (and the directory) are verified: " + r.line());
        assertEquals(1, r.skipped(), r.line());
        assertTrue(r.line().contains("1 skipped") && r.toJson().contains("\"skipped\":1,"), r.toJson());
        assertEquals(block, r.bytesSent(), "only the changed block travelled: " + r.line());
        assertEquals(old, Files.getLastModifiedTime(dst.resolve("same")), "the matching target was not rewritten");
        assertArrayEquals(changed, Files.readAllBytes(dst.resolve("changed")));
        assertEquals(Files.getLastModifiedTime(src.resolve("changed")), Files.getLastModifiedTime(dst.resolve("changed")));
        assertTrue(Files.notExists(tmp.resolve("dst/.urdma-part")), "no part file is left");
    }
}
