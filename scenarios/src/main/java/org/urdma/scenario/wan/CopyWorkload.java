package org.urdma.scenario.wan;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What {@code scenario copy} moves: one large file, a tree of many small files, or a sparse file (data extents at
 * its start and end, a hole between). Made once per run under {@code DIR/data} with a {@code sha256sum}-compatible
 * manifest beside it ({@code DIR/manifest.sha256}, paths {@code ./data/...}), which each row's copy is checked against
 * at the destination by an independent {@code sha256sum -c}.
 */
public enum CopyWorkload {
    LARGE("large", "one large file"), TREE("tree", "a tree of small files"), SPARSE("sparse", "a sparse file");

    private final String key;
    private final String label;

    CopyWorkload(String key, String label) {
        this.key = key;
        this.label = label;
    }

    public String key() {
        return key;
    }

    public String label() {
        return label;
    }

    /** Sizes of the workloads. */
    public record Sizes(long largeBytes, int treeFiles, int treeFileBytes, long sparseBytes) {
    }

    /** What was made: the directory holding {@code data} and the manifest, and the payload (data, not holes) in bytes. */
    public record Made(Path dir, long payloadBytes, int files) {
        public Path data() {
            return dir.resolve("data");
        }

        public Path manifest() {
            return dir.resolve("manifest.sha256");
        }
    }

    /** Parses {@code large,tree,sparse}; an unknown name is refused naming {@code option}. */
    public static List<CopyWorkload> select(String option, String keys) {
        return java.util.Arrays.stream(keys.split(",")).map(String::strip).map(k -> {
            for (CopyWorkload w : values()) {
                if (w.key.equals(k.toLowerCase(Locale.ROOT))) {
                    return w;
                }
            }
            throw new IllegalArgumentException(option + ": large, tree or sparse, was '" + k + "'");
        }).distinct().toList();
    }

    /** Writes the workload under {@code dir} (pseudo-random bytes of a fixed seed) and its manifest. */
    public Made make(Path dir, Sizes sizes) throws IOException, InterruptedException {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        SplittableRandom random = new SplittableRandom(42);
        long payload;
        int files;
        switch (this) {
            case LARGE -> {
                payload = write(data.resolve("large.bin"), 0, sizes.largeBytes(), random);
                files = 1;
            }
            case TREE -> {
                payload = 0;
                int perDir = 1000;
                for (int i = 0; i < sizes.treeFiles(); i++) {
                    Path sub = data.resolve(String.format(Locale.ROOT, "d%03d", i / perDir));
                    Files.createDirectories(sub);
                    payload += write(sub.resolve(String.format(Locale.ROOT, "f%06d", i)), 0, sizes.treeFileBytes(), random);
                }
                files = sizes.treeFiles();
            }
            default -> {
                // a quarter of data at each end, a hole of half the size between
                Path f = data.resolve("sparse.img");
                long quarter = sizes.sparseBytes() / 4;
                payload = write(f, 0, quarter, random) + write(f, sizes.sparseBytes() - quarter, quarter, random);
                files = 1;
            }
        }
        Process p = new ProcessBuilder("sh", "-c", "find ./data -type f -print0 | sort -z | xargs -0 sha256sum > manifest.sha256")
            .directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("sha256sum of the " + key + " workload failed: " + out.strip());
        }
        return new Made(dir, payload, files);
    }

    private static long write(Path file, long at, long bytes, SplittableRandom random) throws IOException {
        byte[] chunk = new byte[1 << 20];
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            for (long done = 0; done < bytes; ) {
                int n = (int) Math.min(chunk.length, bytes - done);
                random.nextBytes(chunk);
                f.write(chunk, 0, n);
                done += n;
            }
            if (f.length() < at + bytes) {
                f.setLength(at + bytes);
            }
        }
        return bytes;
    }
}
