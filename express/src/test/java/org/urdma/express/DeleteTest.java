package org.urdma.express;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.express.progress.TransferCounters;
import org.urdma.express.receiver.Server;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.impair.ImpairmentConfig;

/** --delete: what the destination's copy of a source directory holds and the source does not goes, and nothing else. */
class DeleteTest {
    @TempDir
    Path tmp;

    /** src/{keep, sub/keep, skip.tmp}; at the destination also stale files, a stale tree, a link to outside, an excluded name. */
    private Path[] trees() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src/sub"));
        Files.writeString(src.resolve("keep"), "k");
        Files.writeString(tmp.resolve("src/keep"), "k");
        Files.writeString(tmp.resolve("src/skip.tmp"), "source's");
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("precious"), "p");
        Path dst = Files.createDirectories(tmp.resolve("dst/src/sub"));
        Files.writeString(dst.resolve("stale"), "s");
        Files.createDirectories(tmp.resolve("dst/src/gone/deeper"));
        Files.writeString(tmp.resolve("dst/src/gone/deeper/f"), "s");
        Files.createSymbolicLink(tmp.resolve("dst/src/link-out"), outside);
        Files.writeString(tmp.resolve("dst/src/local.tmp"), "excluded: protected");
        Files.writeString(tmp.resolve("dst/beside"), "not under a source directory");
        return new Path[] {tmp.resolve("src"), tmp.resolve("dst")};
    }

    private void assertDeleted(Path dst, Path outside) {
        assertTrue(Files.notExists(dst.resolve("src/sub/stale")));
        assertTrue(Files.notExists(dst.resolve("src/gone")));
        assertTrue(Files.notExists(dst.resolve("src/link-out"), LinkOption.NOFOLLOW_LINKS), "the link itself is deleted");
        assertTrue(Files.exists(outside.resolve("precious")), "a link is never followed when deleting");
        assertTrue(Files.exists(dst.resolve("beside")), "only what lies in a sent directory is deleted");
        assertTrue(Files.exists(dst.resolve("src/sub/keep")) && Files.exists(dst.resolve("src/keep")));
    }

    @Test
    void aPushDeletesExtraneousEntriesWithoutFollowingLinksAndLeavesExcludedNamesAlone() throws Exception {
        Path[] t = trees();
        CopyResult r = Copier.local(List.of(t[0]), t[1], LocalCopyTest.SMALL.withDelete(true).withExcludes(List.of("*.tmp")), LocalCopyTest.serve(t[1]),
                ImpairmentConfig.none(), 3, new TransferCounters(), w -> { });
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertDeleted(t[1], tmp.resolve("outside"));
        assertEquals("excluded: protected", Files.readString(t[1].resolve("src/local.tmp")), "excluded names are protected");
        assertEquals(5, r.deleted(), "sub/stale, gone, gone/deeper, gone/deeper/f, link-out: " + r.line());
        assertTrue(r.toJson().contains("\"deleted\":5,") && r.line().contains("5 deleted"), r.toJson());

        r = Copier.local(List.of(t[0]), t[1], LocalCopyTest.SMALL.withDelete(true).withExcludes(List.of("*.tmp"))
                .withSync(new CopyOptions.TreeSync(false, true, true)), LocalCopyTest.serve(t[1]), ImpairmentConfig.none(), 3, new TransferCounters(), w -> { });
        assertEquals(1, r.deleted(), "with deleteExcluded the excluded name goes too: " + r.line());
        assertTrue(Files.notExists(t[1].resolve("src/local.tmp")));
    }

    @Test
    void withoutDeleteNothingGoesAndAPullDeletesOnItsOwnSide() throws Exception {
        Path[] t = trees();
        CopyResult r = Copier.local(List.of(t[0]), t[1], LocalCopyTest.SMALL, LocalCopyTest.serve(t[1]), ImpairmentConfig.none(), 3,
                new TransferCounters(), w -> { });
        assertEquals(0, r.deleted());
        assertTrue(Files.exists(t[1].resolve("src/sub/stale")) && Files.exists(t[1].resolve("src/gone/deeper/f")));
        // the same destination pulled from a server whose root holds the source
        try (Urdma.MemoryPair pair = Urdma.memoryPair(DeviceOptions.memory());
             Server s = new Server(pair.first(), 0, LocalCopyTest.serve(tmp), w -> { })) {
            r = Copier.pull(pair.second(), "127.0.0.1", s.port(), List.of("src"), t[1], LocalCopyTest.SMALL.withDelete(true), 3,
                    new TransferCounters(), w -> { });
        }
        assertEquals(CopyResult.EXIT_OK, r.exitCode(), r.line());
        assertDeleted(t[1], tmp.resolve("outside"));
        assertTrue(Files.notExists(t[1].resolve("src/local.tmp")), "a pull has no excludes: the stray name goes");
        assertEquals(6, r.deleted(), r.line());
    }
}
