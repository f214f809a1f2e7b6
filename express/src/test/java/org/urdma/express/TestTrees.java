package org.urdma.express;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/** Source trees the copy tests build, and the checks that a destination matches its source. */
final class TestTrees {
    private TestTrees() {
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** A file of {@code size} bytes with data only in two extents: the rest are holes. */
    static void sparse(Path p, long size, int extent) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(size);
            f.seek(size / 3);
            f.write(random(extent, 7));
            f.seek(size - extent);
            f.write(random(extent, 8));
        }
    }

    /** Large, empty, sparse and many small files, a symlink, odd names; modes and mtimes set. */
    static Path mixed(Path parent, int smallFiles, int largeBytes) throws IOException {
        Path src = parent.resolve("src");
        Files.createDirectories(src.resolve("sub/deeper"));
        Files.write(src.resolve("large.bin"), random(largeBytes, 1));
        Files.write(src.resolve("empty"), new byte[0]);
        sparse(src.resolve("sparse.img"), 8L << 20, 64 * 1024);
        Files.write(src.resolve("name with spaces"), random(1000, 2));
        Files.write(src.resolve("new\nline"), random(2000, 3));
        Files.write(src.resolve("ünïcødé-файл"), random(3000, 4));
        for (int i = 0; i < smallFiles; i++) Files.write(src.resolve("sub/small-" + i), random(100 + i * 37 % 5000, 100 + i));
        Files.write(src.resolve("sub/deeper/exec.sh"), "#!/bin/sh\necho hi\n".getBytes());
        Files.setPosixFilePermissions(src.resolve("sub/deeper/exec.sh"), PosixFilePermissions.fromString("rwxr-x---"));
        Files.setPosixFilePermissions(src.resolve("name with spaces"), PosixFilePermissions.fromString("r--r--r--"));
        Files.createSymbolicLink(src.resolve("link-to-large"), Path.of("large.bin"));
        Files.createSymbolicLink(src.resolve("sub/link-up"), Path.of("../empty"));
        Files.setLastModifiedTime(src.resolve("large.bin"), FileTime.fromMillis(1_500_000_000_000L));
        Files.setLastModifiedTime(src.resolve("sub/deeper"), FileTime.fromMillis(1_400_000_000_000L));
        return src;
    }

    /** Every entry of {@code src} exists at {@code dst} with the same bytes, mode, mtime (and link target). */
    static void assertSameTree(Path src, Path dst) throws IOException {
        try (Stream<Path> s = Files.walk(src)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path q = dst.resolve(src.relativize(p).toString());
                String name = src.relativize(p).toString();
                assertTrue(Files.exists(q, LinkOption.NOFOLLOW_LINKS), "missing " + name);
                if (Files.isSymbolicLink(p)) {
                    assertTrue(Files.isSymbolicLink(q), name + " is not a link");
                    assertEquals(Files.readSymbolicLink(p), Files.readSymbolicLink(q), name + " target");
                    continue;
                }
                Map<String, Object> a = Files.readAttributes(p, "unix:mode,lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
                Map<String, Object> b = Files.readAttributes(q, "unix:mode,lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
                assertEquals(a.get("mode"), b.get("mode"), name + " mode");
                assertEquals(a.get("lastModifiedTime"), b.get("lastModifiedTime"), name + " mtime");
                if (Files.isRegularFile(p)) assertArrayEquals(Files.readAllBytes(p), Files.readAllBytes(q), name + " bytes");
            }
        }
    }

    /** Bytes the file system allocated for a file, as {@code du} reports them (the JDK does not expose st_blocks). */
    static long allocated(Path p) throws IOException, InterruptedException {
        Process du = new ProcessBuilder("du", "--block-size=1", p.toString()).redirectErrorStream(true).start();
        String out = new String(du.getInputStream().readAllBytes()).trim();
        if (du.waitFor() != 0) throw new IOException("du: " + out);
        return Long.parseLong(out.split("\\s+")[0]);
    }
}
